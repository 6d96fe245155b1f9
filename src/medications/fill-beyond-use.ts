/**
 * The beyond-use date a fill gets: the standard's limit (USP <795> for a non-sterile preparation,
 * <797> for a sterile one), the entry's own shorter days, and never later than the earliest expiry
 * of an ingredient lot it used, counted from the start of compounding on the calendar of the
 * pharmacy's time zone (PHARMACY_TIME_ZONE). The answer says which of the three decided it. Pure.
 *
 * An evening fill: compounded at 20:30 on 2 March in America/New_York (01:30 UTC on 3 March), a
 * non-aqueous preparation's 90 days count from 2 March, the pharmacy's day, not from 3 March.
 */
import { nextDate, startOfLocalDay, wallTime } from '../shared/business-hours.js';
import { addDays, maxBeyondUseDays, type BudCategory, type Preparation, type Storage } from './beyond-use.js';
import { MOST_CONSERVATIVE, sterileLimit, type SterileCondition } from './sterile-beyond-use.js';

/** What decided a beyond-use date: the standard's table, the entry's own shorter days, or an ingredient lot's expiry. */
export const BUD_BASES = ['usp_795', 'usp_797', 'entry', 'ingredient_lot'] as const;
export type BudBasis = (typeof BUD_BASES)[number];

/** The formula fields a beyond-use date depends on; `sterile` null for a sterile entry means the most conservative condition. */
export interface FillFormula {
  preparation: Preparation;
  bud_category: BudCategory;
  storage: Storage;
  beyond_use_days: number | null;
  sterile: SterileCondition | null;
}

export interface FillBeyondUse {
  /** YYYY-MM-DD on the pharmacy's calendar. */
  beyond_use_date: string;
  /** The instant, for a limit in hours (Category 1 CSPs); null for a limit in days. */
  beyond_use_at: string | null;
  basis: BudBasis;
  /** The ingredient lot whose expiry decided the date (basis `ingredient_lot`), else null. */
  limiting_lot: string | null;
}

/** The calendar date (YYYY-MM-DD) of an instant on the wall clock of `timeZone`. */
export const localDateOf = (instant: string, timeZone: string): string =>
  new Date(wallTime(Date.parse(instant), timeZone)).toISOString().slice(0, 10);

/** The standard's limit a sterile entry falls under (a condition left unset takes the most conservative). */
export const sterileConditionOf = (formula: Pick<FillFormula, 'sterile'>): SterileCondition =>
  formula.sterile ?? MOST_CONSERVATIVE;

/**
 * The fill's beyond-use date (see above). `lots` are the ingredient lots the fill names, each with
 * its YYYY-MM-DD expiry; a lot expiring on the date the standard gives does not shorten it.
 */
export function fillBeyondUse(
  formula: FillFormula,
  compoundedAt: string,
  timeZone: string,
  lots: readonly { lot_number: string; expires_on: string }[],
): FillBeyondUse {
  const compoundedOn = localDateOf(compoundedAt, timeZone);
  let result: FillBeyondUse;
  if (formula.preparation === 'non_sterile') {
    const max = maxBeyondUseDays(formula.bud_category);
    const own = formula.beyond_use_days !== null && formula.beyond_use_days < max;
    const days = own ? (formula.beyond_use_days ?? max) : max;
    result = {
      beyond_use_date: addDays(compoundedOn, days),
      beyond_use_at: null,
      basis: own ? 'entry' : 'usp_795',
      limiting_lot: null,
    };
  } else {
    const limit = sterileLimit(sterileConditionOf(formula), formula.storage);
    // sterileProblems refuses an entry without a limit (Category 1 frozen); a stored one is read at its refrigerated limit.
    const { unit, amount } = limit ?? { unit: 'hours' as const, amount: 24 };
    if (unit === 'hours') {
      const at = new Date(Date.parse(compoundedAt) + amount * 3_600_000).toISOString();
      result = { beyond_use_date: localDateOf(at, timeZone), beyond_use_at: at, basis: 'usp_797', limiting_lot: null };
    } else {
      const own = formula.beyond_use_days !== null && formula.beyond_use_days < amount;
      const days = own ? (formula.beyond_use_days ?? amount) : amount;
      result = {
        beyond_use_date: addDays(compoundedOn, days),
        beyond_use_at: null,
        basis: own ? 'entry' : 'usp_797',
        limiting_lot: null,
      };
    }
  }
  const earliest = [...lots].sort((a, b) => (a.expires_on < b.expires_on ? -1 : a.expires_on > b.expires_on ? 1 : 0))[0];
  if (earliest === undefined || earliest.expires_on >= result.beyond_use_date) return result;
  // A lot is good through its expiry date: a time-limited CSP then ends at the last minute of that day.
  const lastMinute =
    result.beyond_use_at === null
      ? null
      : new Date(startOfLocalDay(nextDate(earliest.expires_on), timeZone).getTime() - 60_000).toISOString();
  return {
    beyond_use_date: earliest.expires_on,
    beyond_use_at: lastMinute,
    basis: 'ingredient_lot',
    limiting_lot: earliest.lot_number,
  };
}
