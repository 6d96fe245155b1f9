import { describe, expect, it } from 'vitest';
import type { Storage } from '../../src/medications/beyond-use.js';
import {
  MOST_CONSERVATIVE,
  sterileLimit,
  sterileProblems,
  type SterileCondition,
} from '../../src/medications/sterile-beyond-use.js';

const condition = (overrides: Partial<SterileCondition>): SterileCondition => ({ ...MOST_CONSERVATIVE, ...overrides });
const row = (c: SterileCondition): (number | null)[] =>
  (['room', 'refrigerated', 'frozen'] as Storage[]).map((storage) => sterileLimit(c, storage)?.amount ?? null);

/** USP <797> (2023): every row of the BUD limits of Category 1, 2 and 3 CSPs (docs/compounding.md#sterile-preparations). */
describe('USP <797> beyond-use limits, one row each (room, refrigerated, frozen)', () => {
  it('when a CSP is Category 1, then it lasts 12 hours at room temperature and 24 refrigerated, and has no frozen limit', () => {
    const c = condition({ category: 1 });
    expect(row(c)).toEqual([12, 24, null]);
    expect(sterileLimit(c, 'room')?.unit).toBe('hours');
  });

  it('when a Category 2 CSP is aseptically processed from a non-sterile component and not tested, then 1, 4 and 45 days', () => {
    expect(row(condition({ category: 2 }))).toEqual([1, 4, 45]);
  });

  it('when a Category 2 CSP is aseptically processed from sterile components only and not tested, then 4, 10 and 45 days', () => {
    expect(row(condition({ category: 2, nonsterile_component: false }))).toEqual([4, 10, 45]);
  });

  it('when a Category 2 CSP is aseptically processed and sterility tested, then 30, 45 and 60 days', () => {
    expect(row(condition({ category: 2, sterility_tested: true }))).toEqual([30, 45, 60]);
    expect(row(condition({ category: 2, sterility_tested: true, nonsterile_component: false }))).toEqual([30, 45, 60]);
  });

  it('when a Category 2 CSP is terminally sterilized, then 14, 28 and 45 days untested and 45, 60 and 90 tested', () => {
    expect(row(condition({ category: 2, sterilization: 'terminally_sterilized' }))).toEqual([14, 28, 45]);
    expect(row(condition({ category: 2, sterilization: 'terminally_sterilized', sterility_tested: true }))).toEqual([45, 60, 90]);
  });

  it('when a Category 3 CSP is aseptically processed and tested, then 60, 90 and 120 days from a non-sterile component and 90, 120 and 180 from sterile ones', () => {
    expect(row(condition({ category: 3, sterility_tested: true }))).toEqual([60, 90, 120]);
    expect(row(condition({ category: 3, sterility_tested: true, nonsterile_component: false }))).toEqual([90, 120, 180]);
  });

  it('when a Category 3 CSP is terminally sterilized and tested, then 90, 120 and 180 days', () => {
    expect(row(condition({ category: 3, sterilization: 'terminally_sterilized', sterility_tested: true }))).toEqual([
      90, 120, 180,
    ]);
  });

  it('when a condition is not given, then it is the most conservative Category 2 row', () => {
    expect(MOST_CONSERVATIVE).toEqual({
      category: 2,
      sterilization: 'aseptic',
      nonsterile_component: true,
      sterility_tested: false,
    });
  });
});

describe('the rules a sterile entry keeps', () => {
  it('when an entry asks for more days than its condition allows, then beyond_use_days is named', () => {
    expect(sterileProblems(condition({ nonsterile_component: false }), 'refrigerated', 11)).toEqual({
      beyond_use_days: 'must not be longer than 10 days for this condition stored refrigerated (USP <797>)',
    });
    expect(sterileProblems(condition({ nonsterile_component: false }), 'refrigerated', 10)).toEqual({});
  });

  it('when a Category 1 entry is frozen or gives days, then storage or beyond_use_days is named', () => {
    expect(Object.keys(sterileProblems(condition({ category: 1 }), 'frozen', null))).toEqual(['storage']);
    expect(Object.keys(sterileProblems(condition({ category: 1 }), 'room', 1))).toEqual(['beyond_use_days']);
  });

  it('when a Category 3 entry is not sterility tested, then sterility_tested is named', () => {
    expect(Object.keys(sterileProblems(condition({ category: 3 }), 'room', null))).toEqual([
      'sterile_condition.sterility_tested',
    ]);
  });

  it('when the sandbox testosterone entry (room temperature, 45 days) takes the conservative condition, then 45 days is refused', () => {
    expect(Object.keys(sterileProblems(MOST_CONSERVATIVE, 'room', 45))).toEqual(['beyond_use_days']);
  });
});
