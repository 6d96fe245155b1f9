import { describe, expect, it } from 'vitest';
import { unitOfDose } from '../../src/db/migrations/036_quantity_units.js';

describe('the unit migration 036 recognises as the one the old intake derived from the dose (pure)', () => {
  it.each([
    ['10mg', 'mg'],
    ['10 mg', 'mg'],
    ['2.5 MG', 'mg'],
    ['.5mg', 'mg'],
    ['1,000 mcg', 'mcg'],
    ['250 µg', 'mcg'],
    ['1g', 'g'],
    ['0.5 mL', 'mL'],
    ['0.5ml', 'mL'],
    ['1 L', 'L'],
    ['1000 IU', 'IU'],
    ['1000 I.U.', 'IU'],
    ['10 units', 'units'],
    ['5 u', 'units'],
    ['1 tablet', 'tablets'],
    ['2 tabs', 'tablets'],
    ['1 capsule', 'capsules'],
    ['2 drops', 'drops'],
    ['1-2 tablets', 'tablets'],
    ['2.5 mg/mL', 'mg/mL'],
    ['5 mg per kg', 'mg/kg'],
    ['2%', '%'],
    ['20 mEq', 'mEq'],
  ])('when the dose is "%s", then the unit it gave was %s', (dose, unit) => {
    expect(unitOfDose(dose)).toBe(unit);
  });

  it.each(['as directed', 'one', '10', '', '10 widgets', 'mg 10'])('when the dose is "%s", then it gave no unit', (dose) => {
    expect(unitOfDose(dose)).toBeNull();
  });
});
