/**
 * The longest beyond-use date USP <797> allows a compounded sterile preparation (CSP), by its
 * category, how it was sterilized, its starting components, whether it was sterility tested, and
 * how it is stored. Pure: no clock, no I/O.
 *
 * @see USP General Chapter <797> "Pharmaceutical Compounding — Sterile Preparations" (official
 * 1 November 2023), "Establishing Beyond-Use Dates": the BUD limits of Category 1, Category 2 and
 * Category 3 CSPs. docs/compounding.md reproduces the tables with their sources. The <795> table
 * (beyond-use.ts) never applies to a sterile preparation (USP's FAQ on <795>/<797>).
 */
import type { Storage } from './beyond-use.js';

export const STERILE_CATEGORIES = [1, 2, 3] as const;
export type SterileCategory = (typeof STERILE_CATEGORIES)[number];

/** How the CSP was made sterile: filtered and filled aseptically, or sterilized in its final container. */
export const STERILIZATIONS = ['aseptic', 'terminally_sterilized'] as const;
export type Sterilization = (typeof STERILIZATIONS)[number];

/** What the standard's tables key a sterile preparation's BUD on. */
export interface SterileCondition {
  category: SterileCategory;
  sterilization: Sterilization;
  /** True when one or more starting components is non-sterile (a bulk API powder, say). */
  nonsterile_component: boolean;
  /** True when the preparation is sterility tested (USP <71>) and passes before release. */
  sterility_tested: boolean;
}

/**
 * What a sterile entry without these fields is taken to be: Category 2, aseptically processed, from
 * a non-sterile starting component, not sterility tested, the row of the Category 2 table with the
 * shortest dates (1 day at room temperature, 4 refrigerated, 45 frozen).
 */
export const MOST_CONSERVATIVE: Readonly<SterileCondition> = Object.freeze({
  category: 2,
  sterilization: 'aseptic',
  nonsterile_component: true,
  sterility_tested: false,
});

/** A limit in hours (Category 1) or in days (Categories 2 and 3), from the start of compounding. */
export interface SterileLimit {
  readonly unit: 'hours' | 'days';
  readonly amount: number;
}

type ByStorage = Readonly<Record<Storage, number | null>>;

/** Category 1 (compounded in a segregated compounding area): hours; never frozen. */
const CATEGORY_1_HOURS: ByStorage = { room: 12, refrigerated: 24, frozen: null };

/** Category 2, days at controlled room temperature, in a refrigerator and in a freezer. */
const CATEGORY_2_DAYS = {
  terminally_sterilized: {
    tested: { room: 45, refrigerated: 60, frozen: 90 },
    untested: { room: 14, refrigerated: 28, frozen: 45 },
  },
  aseptic: {
    tested: { room: 30, refrigerated: 45, frozen: 60 },
    untested_sterile_components: { room: 4, refrigerated: 10, frozen: 45 },
    untested_nonsterile_component: { room: 1, refrigerated: 4, frozen: 45 },
  },
} as const satisfies Record<string, Record<string, ByStorage>>;

/** Category 3 (sterility tested and passing every test the category requires), days. */
const CATEGORY_3_DAYS = {
  aseptic_nonsterile_component: { room: 60, refrigerated: 90, frozen: 120 },
  aseptic_sterile_components: { room: 90, refrigerated: 120, frozen: 180 },
  terminally_sterilized: { room: 90, refrigerated: 120, frozen: 180 },
} as const satisfies Record<string, ByStorage>;

/** The row of the standard's tables a condition falls in. */
function rowOf(condition: SterileCondition): ByStorage {
  const { category, sterilization, nonsterile_component: nonsterile, sterility_tested: tested } = condition;
  if (category === 1) return CATEGORY_1_HOURS;
  if (category === 3) {
    if (sterilization === 'terminally_sterilized') return CATEGORY_3_DAYS.terminally_sterilized;
    return nonsterile ? CATEGORY_3_DAYS.aseptic_nonsterile_component : CATEGORY_3_DAYS.aseptic_sterile_components;
  }
  if (sterilization === 'terminally_sterilized') return CATEGORY_2_DAYS.terminally_sterilized[tested ? 'tested' : 'untested'];
  if (tested) return CATEGORY_2_DAYS.aseptic.tested;
  return nonsterile ? CATEGORY_2_DAYS.aseptic.untested_nonsterile_component : CATEGORY_2_DAYS.aseptic.untested_sterile_components;
}

/** The standard's limit for a condition and storage; null when the standard gives none (Category 1 frozen). */
export function sterileLimit(condition: SterileCondition, storage: Storage): SterileLimit | null {
  const amount = rowOf(condition)[storage];
  if (amount === null) return null;
  return { unit: condition.category === 1 ? 'hours' : 'days', amount };
}

/**
 * What is wrong with a sterile entry's condition and storage, by field name, or an empty object:
 * Category 1 is never stored frozen; Category 3 requires sterility testing; an entry's own
 * `beyond_use_days` may not exceed the standard's limit (a Category 1 entry's limit is in hours, so
 * it takes no days of its own).
 */
export function sterileProblems(
  condition: SterileCondition,
  storage: Storage,
  beyondUseDays: number | null,
): Record<string, string> {
  const problems: Record<string, string> = {};
  if (condition.category === 3 && !condition.sterility_tested) {
    problems['sterile_condition.sterility_tested'] = 'must be true for a Category 3 CSP (USP <797> requires sterility testing)';
  }
  const limit = sterileLimit(condition, storage);
  if (limit === null) {
    problems.storage = 'must be room or refrigerated for a Category 1 CSP (USP <797> sets no frozen limit)';
  } else if (beyondUseDays !== null) {
    if (limit.unit === 'hours') {
      problems.beyond_use_days = `must be null for a Category 1 CSP: its beyond-use time is at most ${limit.amount} hours (USP <797>)`;
    } else if (beyondUseDays > limit.amount) {
      problems.beyond_use_days = `must not be longer than ${limit.amount} days for this condition stored ${storage} (USP <797>)`;
    }
  }
  return problems;
}
