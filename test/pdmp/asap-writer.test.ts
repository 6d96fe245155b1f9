import { describe, expect, it } from 'vitest';
import { AsapContentError } from '../../src/pdmp/asap-text.js';
import { ASAP_VERSIONS } from '../../src/pdmp/asap-versions.js';
import { writeAsapFile } from '../../src/pdmp/asap-writer.js';
import type { PdmpDispensing } from '../../src/pdmp/pdmp-report.js';
import { el, parseAsap, readAsapFile, recordFields } from './asap-parser.js';
import { buildCompoundDispensing, buildDispensing, buildReport, FILE_OPTIONS, PHARMACIST_NPI } from './pdmp-factories.js';

// The standard's codes as this test reads them (docs/controlled.md), kept apart from the writer's tables.
const STATUS = { new: '00', revise: '01', void: '02' };
const UNIT = { each: '01', mL: '02', g: '03' };

/** What a PDMP reads back for a record written from `input`. */
function expectedFields(input: PdmpDispensing) {
  const product = input.product;
  return {
    status: STATUS[input.status],
    rx_number: input.rx_number,
    written_on: input.written_on,
    refills_authorized: String(input.refills_authorized),
    filled_on: input.filled_on,
    fill_number: String(input.fill_number),
    product:
      product.type === 'ndc'
        ? { qualifier: '01', id: product.ndc.replaceAll('-', '').padStart(11, '0') }
        : { qualifier: '06', id: '99999999999' },
    quantity: String(input.quantity),
    days_supply: String(input.days_supply),
    unit: UNIT[input.unit],
    sold_on: input.sold_on ?? '',
    ingredients:
      product.type === 'ndc'
        ? []
        : product.ingredients
            .filter((i) => i.controlled)
            .map((i, n) => ({
              sequence: String(n + 1),
              qualifier: '01',
              ndc: (i.ndc ?? '').replaceAll('-', ''),
              quantity: String(i.quantity),
              unit: UNIT[i.unit],
            })),
  };
}

describe.each(ASAP_VERSIONS)('an ASAP %s file', (version) => {
  const records = [
    buildDispensing(),
    buildCompoundDispensing({ fill_number: 2, status: 'revise' }),
    buildDispensing({ status: 'void' }),
  ];
  const text = writeAsapFile(buildReport({ version }, records), FILE_OPTIONS);

  it('when written, then every record parses back into the fields it was written from', () => {
    const file = readAsapFile(text);
    expect(file.records).toHaveLength(records.length);
    file.records.forEach((read, i) => {
      const input = records[i]!;
      expect(recordFields(read)).toMatchObject(expectedFields(input));
      expect(recordFields(read).patient).toEqual({
        name: ['Rivera', 'Daniel', 'J'],
        address: ['12 Oak St', '', 'Dallas', 'TX', '752011234'],
        phone: '2145550199',
        birth_date: '1980-07-14',
        gender: 'M',
        species: '01',
        animal_name: '',
      });
    });
  });

  it('when written, then TH declares the version, the control number, the creation in the pharmacy time zone and the terminator', () => {
    // 07:15:30 UTC on 3 March 2026 is 01:15:30 in Chicago (CST, UTC-6).
    expect(text.startsWith(`TH*${version}*TX20260302A*01**20260303*011530*P**~~`)).toBe(true);
    const { elementSeparator, segmentTerminator } = parseAsap(text);
    expect([elementSeparator, segmentTerminator]).toEqual(['*', '~']);
  });

  it('when written, then IS and PHA identify the pharmacy by NPI, NCPDP and DEA, with its address', () => {
    const { source, pharmacy } = readAsapFile(text);
    expect(source.elements).toEqual(['1245319599', 'Hill Country Compounding', '']);
    expect(pharmacy.elements).toEqual([
      '1245319599',
      '4512345',
      'FH1234563',
      'Hill Country Compounding',
      '100 Congress Ave',
      'Suite 200',
      'Austin',
      'TX',
      '78701',
      '5125550100',
      '',
      '',
      '',
    ]);
  });

  it('when a dispensing is written, then DSP carries its origin, partial fill, pharmacist and payment codes', () => {
    const dsp = readAsapFile(text).records[0]!.dispensing;
    expect([el(dsp, 12), el(dsp, 13), el(dsp, 14), el(dsp, 16)]).toEqual(['05', '00', PHARMACIST_NPI, '01']);
    expect(dsp.elements).toHaveLength(25);
  });

  it('when a compound is written, then DSP names it 06/99999999999 and one CDI lists each controlled ingredient', () => {
    const compound = readAsapFile(text).records[1]!;
    expect(compound.ingredients.map((c) => c.elements)).toEqual([['1', '01', '51927107800', '0.6', '03']]);
  });

  it('when a void and a revision are written, then they carry 02 and 01 with the identity of the record they change', () => {
    const [, revised, voided] = readAsapFile(text).records.map(recordFields);
    expect(revised).toMatchObject({ status: '01', rx_number: 'RX-100043', fill_number: '2', filled_on: '2026-03-02' });
    expect(voided).toMatchObject({
      status: '02',
      rx_number: 'RX-100042',
      fill_number: '0',
      filled_on: '2026-03-02',
      quantity: '10',
    });
  });

  it('when written twice from the same report, then the bytes are the same', () => {
    expect(writeAsapFile(buildReport({ version }, records), FILE_OPTIONS)).toBe(text);
  });
});

describe('ASAP versions', () => {
  it('when a prescriber license is written, then 4.2A has PRE04 only and 4.2B adds its state in PRE10', () => {
    const pre = (version: '4.2A' | '4.2B') =>
      readAsapFile(writeAsapFile(buildReport({ version }), FILE_OPTIONS)).records[0]!.prescriber;
    expect(pre('4.2A').elements).toEqual(['1234567893', 'BJ1424326', '', 'TX-R1234', 'Chen', 'Laura', '', '', '']);
    expect(pre('4.2B').elements).toEqual(['1234567893', 'BJ1424326', '', 'TX-R1234', 'Chen', 'Laura', '', '', '', 'TX']);
  });

  it('when a state reads other separators, then TH declares them and the file parses with them', () => {
    const text = writeAsapFile(buildReport(), { ...FILE_OPTIONS, separators: { element: '|', segment: '^' } });
    expect(text.startsWith('TH|4.2A|TX20260302A|01||20260303|011530|P||^^')).toBe(true);
    expect(recordFields(readAsapFile(text).records[0]!).rx_number).toBe('RX-100042');
  });

  it.each([
    [{ element: '*', segment: '*' }, 'must differ'],
    [{ element: 'A', segment: '~' }, 'not a letter'],
    [{ element: '*', segment: '\n' }, 'printable ASCII'],
  ])('when the separators are %j, then the file is refused', (separators, problem) => {
    expect(() => writeAsapFile(buildReport(), { ...FILE_OPTIONS, separators })).toThrow(problem);
  });

  it('when a field cannot be written, then the refusal names its path and not its value', () => {
    const report = buildReport({}, [
      buildDispensing(),
      buildDispensing({ prescriber: { ...buildDispensing().prescriber, npi: '1234567890' } }),
    ]);
    const error = (() => {
      try {
        writeAsapFile(report, FILE_OPTIONS);
      } catch (e) {
        return e as AsapContentError;
      }
    })();
    expect(error).toBeInstanceOf(AsapContentError);
    expect(error?.field).toBe('records[1].prescriber.npi');
    expect(error?.message).not.toContain('1234567890');
  });

  it('when a compound lists no controlled ingredient, or a controlled one without an NDC, then it is refused', () => {
    const noControlled = buildCompoundDispensing({
      product: { type: 'compound', ingredients: [{ name: 'Base', quantity: 30, unit: 'g', controlled: false }] },
    });
    expect(() => writeAsapFile(buildReport({}, [noControlled]), FILE_OPTIONS)).toThrow(
      'records[0].product.ingredients must include',
    );
    const noNdc = buildCompoundDispensing({
      product: { type: 'compound', ingredients: [{ name: 'Testosterone', quantity: 1, unit: 'g', controlled: true }] },
    });
    expect(() => writeAsapFile(buildReport({}, [noNdc]), FILE_OPTIONS)).toThrow(
      'records[0].product.ingredients[0].ndc is required',
    );
  });

  it('when a patient is an animal, then PAT20 is 02, the owner is PAT07/PAT08 and the animal PAT23', () => {
    const pet = buildDispensing({ patient: { ...buildDispensing().patient, species: 'veterinary', animal_name: 'Biscuit' } });
    const fields = recordFields(readAsapFile(writeAsapFile(buildReport({}, [pet]), FILE_OPTIONS)).records[0]!);
    expect(fields.patient).toMatchObject({ name: ['Rivera', 'Daniel', 'J'], species: '02', animal_name: 'Biscuit' });
    const nameless = buildDispensing({ patient: { ...buildDispensing().patient, species: 'veterinary' } });
    expect(() => writeAsapFile(buildReport({}, [nameless]), FILE_OPTIONS)).toThrow('records[0].patient.animal_name is required');
  });
});
