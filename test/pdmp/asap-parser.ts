/**
 * A reader of ASAP files for the tests, written from the standard's segment tables (docs/controlled.md)
 * and not from the writer's: it finds the separators as a PDMP does (the character after `TH`, and
 * TH09), splits segments and elements, and reads each record's elements by their numbers.
 */

export interface ParsedSegment {
  id: string;
  /** elements[0] is element 01. */
  elements: string[];
}

export interface ParsedAsap {
  elementSeparator: string;
  segmentTerminator: string;
  segments: ParsedSegment[];
}

/** Element `n` (1-based) of a segment, '' when absent. */
export const el = (segment: ParsedSegment | undefined, n: number): string => segment?.elements[n - 1] ?? '';

export function parseAsap(text: string): ParsedAsap {
  if (!text.startsWith('TH')) throw new Error('an ASAP file starts with TH');
  const elementSeparator = text.charAt(2);
  // TH09, the segment terminator, is the ninth element: after the ninth separator of the file.
  let at = 2;
  for (let i = 0; i < 8; i++) {
    at = text.indexOf(elementSeparator, at + 1);
    if (at < 0) throw new Error('TH has fewer than nine elements');
  }
  const segmentTerminator = text.charAt(at + 1);
  if (text.charAt(at + 2) !== segmentTerminator) throw new Error('TH09 must be followed by the segment terminator');
  const header = text.slice(0, at + 2);
  const rest = text.slice(at + 3);
  const bodies = rest.split(segmentTerminator).map((s) => s.replace(/^[\r\n]+/, ''));
  if (bodies.at(-1) === '') bodies.pop();
  const split = (body: string): ParsedSegment => {
    const [id = '', ...elements] = body.split(elementSeparator);
    return { id, elements };
  };
  return { elementSeparator, segmentTerminator, segments: [split(header), ...bodies.map(split)] };
}

const isoDate = (ccyymmdd: string): string =>
  ccyymmdd === '' ? '' : `${ccyymmdd.slice(0, 4)}-${ccyymmdd.slice(4, 6)}-${ccyymmdd.slice(6, 8)}`;

export interface ReadRecord {
  patient: ParsedSegment;
  dispensing: ParsedSegment;
  prescriber: ParsedSegment;
  ingredients: ParsedSegment[];
  additional: ParsedSegment | undefined;
}

export interface ReadFile {
  header: ParsedSegment;
  source: ParsedSegment;
  pharmacy: ParsedSegment;
  records: ReadRecord[];
  pharmacyTrailer: ParsedSegment;
  trailer: ParsedSegment;
}

/** The file's structure: TH, IS, PHA, then PAT–DSP–PRE–CDI*–AIR? records, TP, TT; counts checked. */
export function readAsapFile(text: string): ReadFile {
  const { segments } = parseAsap(text);
  const ids = segments.map((s) => s.id).join(' ');
  if (!/^TH IS PHA( PAT DSP PRE( CDI)*( AIR)?)+ TP TT$/.test(ids)) throw new Error(`unexpected segment order: ${ids}`);
  const [header, source, pharmacy] = segments as [ParsedSegment, ParsedSegment, ParsedSegment];
  const trailer = segments.at(-1) as ParsedSegment;
  const pharmacyTrailer = segments.at(-2) as ParsedSegment;
  if (Number(el(trailer, 2)) !== segments.length) throw new Error('TT02 is not the number of segments');
  if (Number(el(pharmacyTrailer, 1)) !== segments.length - 3)
    throw new Error('TP01 is not the number of segments from PHA to TP');
  if (el(trailer, 1) !== el(header, 2)) throw new Error('TT01 is not TH02');
  const records: ReadRecord[] = [];
  for (const segment of segments.slice(3, -2)) {
    const current = records.at(-1);
    if (segment.id === 'PAT') records.push({ patient: segment, ingredients: [] as ParsedSegment[] } as ReadRecord);
    else if (segment.id === 'DSP' && current) current.dispensing = segment;
    else if (segment.id === 'PRE' && current) current.prescriber = segment;
    else if (segment.id === 'CDI' && current) current.ingredients.push(segment);
    else if (segment.id === 'AIR' && current) current.additional = segment;
  }
  return { header, source, pharmacy, records, pharmacyTrailer, trailer };
}

/** A record's fields by their element numbers (DSP02 Rx number, DSP05 date filled…), dates as YYYY-MM-DD. */
export function recordFields(record: ReadRecord) {
  const { patient: p, dispensing: d, prescriber: r } = record;
  return {
    status: el(d, 1),
    rx_number: el(d, 2),
    written_on: isoDate(el(d, 3)),
    refills_authorized: el(d, 4),
    filled_on: isoDate(el(d, 5)),
    fill_number: el(d, 6),
    product: { qualifier: el(d, 7), id: el(d, 8) },
    quantity: el(d, 9),
    days_supply: el(d, 10),
    unit: el(d, 11),
    origin: el(d, 12),
    partial_fill: el(d, 13),
    payment: el(d, 16),
    sold_on: isoDate(el(d, 17)),
    patient: {
      name: [el(p, 7), el(p, 8), el(p, 9)],
      address: [el(p, 12), el(p, 13), el(p, 14), el(p, 15), el(p, 16)],
      phone: el(p, 17),
      birth_date: isoDate(el(p, 18)),
      gender: el(p, 19),
      species: el(p, 20),
      animal_name: el(p, 23),
    },
    prescriber: {
      npi: el(r, 1),
      dea: el(r, 2),
      dea_suffix: el(r, 3),
      license: el(r, 4),
      name: [el(r, 5), el(r, 6), el(r, 7)],
      license_state: el(r, 10),
    },
    ingredients: record.ingredients.map((c) => ({
      sequence: el(c, 1),
      qualifier: el(c, 2),
      ndc: el(c, 3),
      quantity: el(c, 4),
      unit: el(c, 5),
    })),
  };
}
