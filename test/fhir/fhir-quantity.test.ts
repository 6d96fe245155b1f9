import { describe, expect, it } from 'vitest';
import { countableUnitOf, quantityOf, strengthRatioOf, ucumCodeOf } from '../../src/fhir/fhir-quantity.js';
import { MEDICATION_REQUEST_STATUS_OF, orderStatusesOf } from '../../src/fhir/medication-request-status.js';

/** Our units as FHIR Quantities (UCUM only where the mapping is safe), and the status mapping run backwards. */
describe('FHIR quantities of our units', () => {
  it('when a unit is a mass, volume, international unit, milliequivalent or percent (any spelling), then it has its UCUM code', () => {
    const cases: [string, string][] = [
      ['mg', 'mg'],
      ['MG', 'mg'],
      ['milligrams', 'mg'],
      ['mcg', 'ug'],
      ['µg', 'ug'],
      ['g', 'g'],
      ['mL', 'mL'],
      ['ml', 'mL'],
      ['L', 'L'],
      ['IU', '[IU]'],
      ['mEq', 'meq'],
      ['%', '%'],
      ['mg/mL', 'mg/mL'],
      ['mg per mL', 'mg/mL'],
      ['mcg/g', 'ug/g'],
    ];
    expect(cases.map(([unit]) => [unit, ucumCodeOf(unit)])).toEqual(cases);
  });

  it('when a unit is not one UCUM names the same way, or only begins like one, then it has no code and keeps its text', () => {
    for (const unit of ['units', 'tablets', 'clicks', 'mg in oil', 'mg/mL/day', 'mg/%', ''])
      expect(ucumCodeOf(unit), unit).toBeUndefined();
    expect(quantityOf(30, 'capsules')).toEqual({ value: 30, unit: 'capsules' });
    expect(quantityOf(2, null)).toEqual({ value: 2 });
  });

  it('when a strength is given, then it is a Ratio per its unit’s denominator, per piece of a counted form, or per unity', () => {
    const UCUM = 'http://unitsofmeasure.org';
    expect(strengthRatioOf('2.5', 'mg/mL', null)).toEqual({
      numerator: { value: 2.5, unit: 'mg', system: UCUM, code: 'mg' },
      denominator: { value: 1, unit: 'mL', system: UCUM, code: 'mL' },
    });
    expect(strengthRatioOf('100', 'mg', countableUnitOf('Capsules'))).toEqual({
      numerator: { value: 100, unit: 'mg', system: UCUM, code: 'mg' },
      denominator: { value: 1, unit: 'capsule' },
    });
    expect(strengthRatioOf('0.1', '%', countableUnitOf('Cream'))?.denominator).toEqual({
      value: 1,
      unit: '1',
      system: UCUM,
      code: '1',
    });
    for (const strength of ['q.s.', '2.5-5', '1e3', '']) expect(strengthRatioOf(strength, 'mg', null), strength).toBeUndefined();
  });

  it('when MedicationRequest statuses are searched, then they stand for the order statuses that map onto them', () => {
    expect(orderStatusesOf(['active'])).toEqual(['pending', 'processing', 'shipped']);
    expect(orderStatusesOf(['on-hold', 'completed'])).toEqual(['on_hold', 'delivered']);
    expect(orderStatusesOf(['stopped', 'draft', 'entered-in-error', 'unknown'])).toEqual([]);
    expect(Object.keys(MEDICATION_REQUEST_STATUS_OF)).toHaveLength(6);
  });
});
