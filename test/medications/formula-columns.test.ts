import { describe, expect, it } from 'vitest';
import {
  formulaOf,
  formulaOfVersion,
  formulaVersionText,
  ingredientsOf,
  NO_FORMULA,
  restrictedStatesOf,
} from '../../src/medications/formula.js';

const INGREDIENTS = [
  { name: 'estradiol', strength: '0.1', unit: 'mg/g', active: true },
  { name: 'Versabase cream', strength: 'q.s.', unit: 'g', active: false },
];

describe('the formula’s JSON columns', () => {
  it('when an entry has a formula, then its ingredients column reads as the ingredients written', () => {
    expect(ingredientsOf(JSON.stringify(INGREDIENTS))).toEqual(INGREDIENTS);
  });

  it('when an entry has no formula, then it has no ingredients and no restricted states', () => {
    expect(ingredientsOf(null)).toBeNull();
    expect(restrictedStatesOf(null)).toEqual([]);
  });

  it('when an entry is restricted from states, then its column reads as those states', () => {
    expect(restrictedStatesOf('["NY","TX"]')).toEqual(['NY', 'TX']);
  });

  it('when a formula version is written and read back, then it holds the formula’s fields as the API showed them', () => {
    const fields = formulaOf({ ...NO_FORMULA, ingredients: JSON.stringify(INGREDIENTS), restricted_states: '["NY"]' });
    expect(formulaOfVersion(formulaVersionText(fields))).toEqual(fields);
  });
});
