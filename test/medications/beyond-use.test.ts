import { describe, expect, it } from 'vitest';
import {
  BUD_TABLE,
  addDays,
  budProblems,
  maxBeyondUseDays,
  storageAllowed,
  type BudCategory,
} from '../../src/medications/beyond-use.js';
import { fillBeyondUse } from '../../src/medications/fill-beyond-use.js';

const nonSterile = (bud_category: BudCategory, beyond_use_days: number | null = null) => ({
  preparation: 'non_sterile' as const,
  bud_category,
  beyond_use_days,
});

/** A non-sterile fill's beyond-use date, compounded at noon UTC on `day`, on the UTC calendar (medications/fill-beyond-use.ts). */
const beyondUseDate = (formula: ReturnType<typeof nonSterile>, day: string, lotExpiries: readonly string[] = []): string =>
  fillBeyondUse(
    { ...formula, storage: 'refrigerated', sterile: null },
    `${day}T12:00:00.000Z`,
    'UTC',
    lotExpiries.map((expires_on, i) => ({ lot_number: `L${i}`, expires_on })),
  ).beyond_use_date;

describe('USP <795> table, one row each', () => {
  it('when a solid is compounded on 2026-01-01, then its BUD is 180 days later, 2026-06-30', () => {
    expect(beyondUseDate(nonSterile('solid'), '2026-01-01')).toBe('2026-06-30');
  });

  it('when a non-aqueous preparation is compounded on 2026-01-01, then its BUD is 90 days later, 2026-04-01', () => {
    expect(beyondUseDate(nonSterile('non_aqueous'), '2026-01-01')).toBe('2026-04-01');
  });

  it('when a preserved aqueous preparation is compounded on 2026-01-01, then its BUD is 35 days later, 2026-02-05', () => {
    expect(beyondUseDate(nonSterile('aqueous_preserved'), '2026-01-01')).toBe('2026-02-05');
  });

  it('when a non-preserved aqueous preparation is compounded on 2026-01-01, then its BUD is 14 days later, 2026-01-15', () => {
    expect(beyondUseDate(nonSterile('aqueous_non_preserved'), '2026-01-01')).toBe('2026-01-15');
  });

  it('when the table is read, then it has exactly the four categories with 180, 90, 35 and 14 days', () => {
    expect(Object.fromEntries(Object.entries(BUD_TABLE).map(([k, v]) => [k, v.days]))).toEqual({
      solid: 180,
      non_aqueous: 90,
      aqueous_preserved: 35,
      aqueous_non_preserved: 14,
    });
  });
});

describe('beyond-use rules', () => {
  it('when an ingredient lot expires before the category BUD, then the BUD is the earliest lot expiry', () => {
    expect(beyondUseDate(nonSterile('solid'), '2026-01-01', ['2026-05-01', '2026-03-10', '2027-01-01'])).toBe('2026-03-10');
  });

  it('when every ingredient lot expires after the category BUD, then the category BUD stands', () => {
    expect(beyondUseDate(nonSterile('aqueous_preserved'), '2026-01-01', ['2026-12-31'])).toBe('2026-02-05');
  });

  it('when a non-sterile entry has a shorter override, then the override counts', () => {
    expect(beyondUseDate(nonSterile('solid', 30), '2026-01-01')).toBe('2026-01-31');
  });

  it('when a non-sterile override is longer than the category allows, then the category caps it', () => {
    expect(beyondUseDate(nonSterile('aqueous_non_preserved', 60), '2026-01-01')).toBe('2026-01-15');
  });

  it('when the count crosses a leap day, then it is counted on the calendar', () => {
    expect(addDays('2028-02-15', 14)).toBe('2028-02-29');
    expect(addDays('2027-02-15', 14)).toBe('2027-03-01');
  });

  it('when a date that is not on the calendar is counted from, then it throws', () => {
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
  });

  it('when the maximum days are asked per category, then they are the table rows', () => {
    expect(maxBeyondUseDays('non_aqueous')).toBe(90);
  });
});

describe('storage per category', () => {
  it('when a non-preserved aqueous preparation is stored at room temperature, then it is not allowed', () => {
    expect(storageAllowed('aqueous_non_preserved', 'room')).toBe(false);
    expect(storageAllowed('aqueous_non_preserved', 'refrigerated')).toBe(true);
  });

  it('when the other categories are stored at room or refrigerated, then both are allowed, frozen is not', () => {
    for (const category of ['solid', 'non_aqueous', 'aqueous_preserved'] as const) {
      expect(storageAllowed(category, 'room')).toBe(true);
      expect(storageAllowed(category, 'refrigerated')).toBe(true);
      expect(storageAllowed(category, 'frozen')).toBe(false);
    }
  });

  it('when a formula is checked, then each broken rule names its field', () => {
    expect(budProblems({ ...nonSterile('aqueous_non_preserved'), storage: 'room' })).toEqual({
      storage: 'must be refrigerated for aqueous_non_preserved',
    });
    expect(budProblems({ ...nonSterile('solid', 181), storage: 'room' })).toEqual({
      beyond_use_days: 'must not be longer than 180 days for solid (USP <795>)',
    });
    // A sterile preparation's days are USP <797>'s (sterile-beyond-use.ts): <795>'s rules say nothing of it.
    expect(budProblems({ preparation: 'sterile', bud_category: 'solid', beyond_use_days: null, storage: 'frozen' })).toEqual({});
    expect(budProblems({ ...nonSterile('solid', 180), storage: 'refrigerated' })).toEqual({});
  });
});
