import { describe, expect, it } from 'vitest';
import { ASAP_VERSIONS } from '../../src/pdmp/asap-versions.js';
import { writeAsapFile } from '../../src/pdmp/asap-writer.js';
import { el, readAsapFile } from './asap-parser.js';
import { buildReport, FILE_OPTIONS } from './pdmp-factories.js';

describe.each(ASAP_VERSIONS)('an ASAP %s zero report', (version) => {
  const text = writeAsapFile(buildReport({ version, state: 'FL', day: '2026-03-02' }, []), FILE_OPTIONS);

  it('when a day has no dispensing, then the file is TH, IS, PHA, PAT, DSP, PRE, CDI, AIR, TP 7, TT 10', () => {
    const file = readAsapFile(text);
    expect(file.records).toHaveLength(1);
    expect([el(file.pharmacyTrailer, 1), el(file.trailer, 2)]).toEqual(['7', '10']);
  });

  it('when a day has no dispensing, then IS03 gives the day as its range, PAT reads REPORT ZERO and DSP05 is the day', () => {
    const { source, records } = readAsapFile(text);
    const [zero] = records;
    expect(el(source, 3)).toBe('#20260302#-#20260302#');
    expect([el(zero!.patient, 7), el(zero!.patient, 8)]).toEqual(['REPORT', 'ZERO']);
    expect([el(zero!.dispensing, 1), el(zero!.dispensing, 5)]).toEqual(['00', '20260302']);
    expect(zero!.prescriber.elements.every((value) => value === '')).toBe(true);
    expect(zero!.ingredients.flatMap((c) => c.elements).every((value) => value === '')).toBe(true);
  });

  it('when a day has no dispensing, then the pharmacy is identified as in any other file', () => {
    const { pharmacy } = readAsapFile(text);
    expect([el(pharmacy, 1), el(pharmacy, 3)]).toEqual(['1245319599', 'FH1234563']);
  });
});

describe('the 4.2A zero report, whole', () => {
  it('when written, then every segment has all its elements, the empty ones as consecutive separators', () => {
    const text = writeAsapFile(buildReport({ day: '2026-03-02' }, []), FILE_OPTIONS);
    expect(text.split('~').slice(2)).toEqual([
      'IS*1245319599*Hill Country Compounding*#20260302#-#20260302#',
      'PHA*1245319599*4512345*FH1234563*Hill Country Compounding*100 Congress Ave*Suite 200*Austin*TX*78701*5125550100***',
      'PAT*******REPORT*ZERO***************',
      'DSP*00****20260302********************',
      'PRE*********',
      'CDI*****',
      'AIR***********',
      'TP*7',
      'TT*TX20260302A*10',
      '',
    ]);
  });
});
