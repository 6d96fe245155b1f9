import { describe, expect, it } from 'vitest';
import { cleanFreeText, DEFAULT_SEPARATORS } from '../../src/pdmp/asap-text.js';
import { writeAsapFile } from '../../src/pdmp/asap-writer.js';
import { readAsapFile, recordFields } from './asap-parser.js';
import { buildDispensing, buildPharmacy, buildReport, FILE_OPTIONS } from './pdmp-factories.js';

describe('free text in an ASAP file', () => {
  it.each([
    ['O*Brien', 'O Brien'],
    ['Smith~Jones', 'Smith Jones'],
    ['  José   Núñez ', 'Jose Nunez'],
    ['Line\r\nbreak\ttab', 'Line break tab'],
    ['Zoë 李', 'Zoe'],
  ])('when %j is written, then it reads %j: no separator, no control character, ASCII only', (value, written) => {
    expect(cleanFreeText(value, DEFAULT_SEPARATORS)).toBe(written);
  });

  it('when a name and an address hold the separators, then the record still parses into the same number of elements', () => {
    const base = buildDispensing();
    const record = buildDispensing({
      patient: {
        ...base.patient,
        last_name: 'O*Brien~',
        address: { ...base.patient.address, line1: '12 Oak St * Apt ~4' },
      },
      prescriber: { ...base.prescriber, first_name: 'Lau*ra' },
    });
    const file = readAsapFile(writeAsapFile(buildReport({}, [record]), FILE_OPTIONS));
    const fields = recordFields(file.records[0]!);
    expect(file.records[0]!.patient.elements).toHaveLength(23);
    expect(fields.patient.name[0]).toBe('O Brien');
    expect(fields.patient.address[0]).toBe('12 Oak St Apt 4');
    expect(fields.prescriber.name[1]).toBe('Lau ra');
  });

  it('when the file uses other separators, then those are the characters removed from free text', () => {
    const pharmacy = buildPharmacy({ name: 'Hill|Country*Rx' });
    const text = writeAsapFile(buildReport({ pharmacy }), { ...FILE_OPTIONS, separators: { element: '|', segment: '^' } });
    expect(readAsapFile(text).pharmacy.elements[3]).toBe('Hill Country*Rx');
  });

  it('when a required name has nothing printable left, then it is refused by its path', () => {
    const record = buildDispensing({ patient: { ...buildDispensing().patient, first_name: '李' } });
    expect(() => writeAsapFile(buildReport({}, [record]), FILE_OPTIONS)).toThrow('records[0].patient.first_name is required');
  });
});

describe('identifiers in an ASAP file', () => {
  it.each([
    ['an Rx number', { rx_number: 'RX*1' }, 'records[0].rx_number must not contain'],
    ['an Rx number', { rx_number: 'RX~1' }, 'records[0].rx_number must not contain'],
    ['an Rx number', { rx_number: 'RX-1\u00e9' }, 'records[0].rx_number must be printable ASCII'],
    ['a diagnosis code', { diagnosis_code: 'E29*1' }, 'records[0].diagnosis_code must not contain'],
  ])(
    'when %s holds a separator or a character outside ASCII, then the file is refused, naming it',
    (_what, overrides, message) => {
      expect(() => writeAsapFile(buildReport({}, [buildDispensing(overrides)]), FILE_OPTIONS)).toThrow(message);
    },
  );

  it('when an Rx number is refused, then the message does not repeat it', () => {
    expect(() => writeAsapFile(buildReport({}, [buildDispensing({ rx_number: 'SECRET*42' })]), FILE_OPTIONS)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('SECRET') }),
    );
  });
});
