import { describe, expect, it } from 'vitest';
import { fillMedication } from '../../src/fhir/medication-resources.js';
import type { FillRow } from '../../src/fhir/medication.repository.js';
import type { FillIngredientLotTable } from '../../src/compounding/compounding.tables.js';

const FILL: FillRow = {
  id: '0190f5c0-0000-7000-8000-000000000001',
  medication_request_id: '0190f5c0-0000-7000-8000-000000000002',
  lot_number: 'L-1',
  beyond_use_date: '2030-02-01',
  medication: 'Estradiol cream',
  entry_name: 'Estradiol cream',
  dosage_form: 'cream',
  ingredients: JSON.stringify([
    { name: 'estradiol cypionate', strength: '0.1', unit: 'mg/g', active: true },
    { name: 'Versabase cream', strength: 'q.s.', unit: 'g', active: false },
  ]),
};

const lot = (position: number, ingredient: string): FillIngredientLotTable => ({
  id: `0190f5c0-0000-7000-8000-00000000010${String(position)}`,
  fill_id: FILL.id,
  medication_request_id: FILL.medication_request_id,
  clinic_id: '0190f5c0-0000-7000-8000-000000000003',
  position,
  ingredient,
  lot_number: `IL-${String(position)}`,
  expires_on: '2031-01-01',
});

const names = (lots: FillIngredientLotTable[]): (string | undefined)[] =>
  (fillMedication(FILL, lots).ingredient ?? []).map((each) => each.itemCodeableConcept?.text);

describe('the ingredients of a fill’s Medication', () => {
  it('when a lot names a formula ingredient without its salt, in other case and spacing, then the ingredient is listed once', () => {
    expect(names([lot(0, 'Estradiol'), lot(1, '  versabase   CREAM ')])).toEqual(['estradiol cypionate', 'Versabase cream']);
  });

  it('when two lots name one substance the formula lacks, then it is listed once, after the formula’s', () => {
    expect(names([lot(0, 'Propylene glycol'), lot(1, 'propylene-glycol')])).toEqual([
      'estradiol cypionate',
      'Versabase cream',
      'Propylene glycol',
    ]);
  });
});
