import { isTimeZone, wallTime } from '../shared/business-hours.js';
import { FILE_TYPE, type FileType, SEND_REQUEST_TRANSACTION } from './asap-codes.js';
import { asapDate, stateCode } from './asap-fields.js';
import { dispensingSegments, pharmacySegment, type Segment, zeroReportSegments } from './asap-segments.js';
import {
  AsapContentError,
  type AsapSeparators,
  DEFAULT_SEPARATORS,
  freeText,
  identifier,
  separatorsProblem,
} from './asap-text.js';
import { ASAP_SEGMENTS, type AsapVersion, isAsapVersion, KNOWN_ELEMENTS } from './asap-versions.js';
import type { PdmpReport } from './pdmp-report.js';

export interface AsapFileOptions {
  /** TH02 and TT01: unique per file sent by this pharmacy (the submission's id, say). */
  controlNumber: string;
  /** TH05/TH06, written as the pharmacy's wall clock shows it. */
  createdAt: Date;
  timeZone: string;
  /** TH07; production unless the PDMP's test environment is the recipient. */
  fileType?: FileType;
  separators?: AsapSeparators;
}

/**
 * One ASAP file for one PDMP and one day: TH, IS, PHA, per dispensing PAT, DSP, PRE, CDI (one per
 * controlled ingredient of a compound) and AIR (when given), then TP and TT; with no dispensing, a
 * zero report. Every segment is written with all the elements of its version (empty ones as
 * consecutive separators), as parafill/asap writes 4.2A. Pure: the same report and options give
 * the same bytes.
 * @throws AsapContentError naming the first field that cannot be written (never its value).
 */
export function writeAsapFile(report: PdmpReport, options: AsapFileOptions): string {
  const separators = options.separators ?? DEFAULT_SEPARATORS;
  const problem = separatorsProblem(separators);
  if (problem !== null) throw new AsapContentError('separators', problem);
  if (!isAsapVersion(report.version)) throw new AsapContentError('version', 'must be 4.2A or 4.2B');
  stateCode('state', report.state);
  if (!isTimeZone(options.timeZone)) throw new AsapContentError('timeZone', 'must be an IANA time zone');
  const controlNumber = identifier('controlNumber', options.controlNumber, separators, 20);
  const day = asapDate('day', report.day);
  const zero = report.records.length === 0;

  const detail: Segment[] = [
    pharmacySegment(report.pharmacy, separators),
    ...(zero ? zeroReportSegments(report.day) : report.records.flatMap((record, i) => dispensingSegments(record, i, separators))),
  ];
  const created = new Date(wallTime(options.createdAt.getTime(), options.timeZone)).toISOString();
  const header: Segment = {
    id: 'TH',
    values: {
      TH01: report.version,
      TH02: controlNumber,
      TH03: SEND_REQUEST_TRANSACTION,
      TH05: created.slice(0, 10).replaceAll('-', ''),
      TH06: created.slice(11, 19).replaceAll(':', ''),
      TH07: FILE_TYPE[options.fileType ?? 'production'],
      TH09: separators.segment,
    },
  };
  const source: Segment = {
    id: 'IS',
    values: {
      IS01: identifier('source.id', report.source?.id ?? report.pharmacy.npi, separators, 20),
      IS02: freeText('source.name', report.source?.name ?? report.pharmacy.name, separators, true),
      // A zero report says which days it covers: #CCYYMMDD#-#CCYYMMDD#.
      IS03: zero ? `#${day}#-#${day}#` : '',
    },
  };
  const trailer: Segment = { id: 'TP', values: { TP01: String(detail.length + 1) } };
  const segments = [header, source, ...detail, trailer];
  segments.push({ id: 'TT', values: { TT01: controlNumber, TT02: String(segments.length + 1) } });
  return segments.map((segment) => serializeSegment(segment, report.version, separators)).join('');
}

/** A segment as its version lays it out: every element in order, the ones without a value empty. */
function serializeSegment(segment: Segment, version: AsapVersion, separators: AsapSeparators): string {
  const elements = ASAP_SEGMENTS[version][segment.id];
  for (const id of Object.keys(segment.values)) {
    if (!KNOWN_ELEMENTS.has(id)) throw new Error(`${id} is not an element of any ASAP version the writer knows`);
  }
  const values = elements.map(([id]) => segment.values[id] ?? '');
  return [segment.id, ...values].join(separators.element) + separators.segment;
}
