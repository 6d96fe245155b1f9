/**
 * A sterile formulary entry's USP <797> condition (sterile-beyond-use.ts) as columns (migration 030)
 * and as the API shows it, and how a body changes it. Pure: no I/O.
 */
import type { MedicationTable } from './medication.tables.js';
import { MOST_CONSERVATIVE, type SterileCategory, type SterileCondition, type Sterilization } from './sterile-beyond-use.js';

/** The condition as the API shows it: USP <797>'s keys, and whether the entry left it to the default. */
export interface SterileConditionView {
  category: SterileCategory;
  /** How the preparation is made sterile. */
  preparation: Sterilization;
  nonsterile_component: boolean;
  sterility_tested: boolean;
  /** True when the entry gave none: the most conservative Category 2 row applies. */
  defaulted: boolean;
}

/** What a body sends. */
export type SterileConditionInput = Omit<SterileConditionView, 'defaulted'>;

export type SterileColumns = Pick<
  MedicationTable,
  'sterile_category' | 'sterile_preparation' | 'sterile_nonsterile_component' | 'sterile_tested' | 'sterile_defaulted'
>;

export const NO_STERILE_CONDITION: SterileColumns = Object.freeze({
  sterile_category: null,
  sterile_preparation: null,
  sterile_nonsterile_component: null,
  sterile_tested: null,
  sterile_defaulted: null,
});

/** The condition a row holds; null for an entry that is not sterile (or whose condition was never set). */
export function sterileConditionOf(row: SterileColumns): SterileConditionView | null {
  if (row.sterile_category === null || row.sterile_preparation === null) return null;
  return {
    category: row.sterile_category as SterileCategory,
    preparation: row.sterile_preparation as Sterilization,
    nonsterile_component: row.sterile_nonsterile_component === 1,
    sterility_tested: row.sterile_tested === 1,
    defaulted: row.sterile_defaulted === 1,
  };
}

/** The condition USP <797>'s limits are read with. */
export const conditionForLimits = (view: SterileConditionView | null): SterileCondition =>
  view === null
    ? MOST_CONSERVATIVE
    : {
        category: view.category,
        sterilization: view.preparation,
        nonsterile_component: view.nonsterile_component,
        sterility_tested: view.sterility_tested,
      };

/** The default a sterile entry without a condition takes, as its read shows it. */
export const DEFAULTED_CONDITION: SterileConditionView = Object.freeze({
  category: MOST_CONSERVATIVE.category,
  preparation: MOST_CONSERVATIVE.sterilization,
  nonsterile_component: MOST_CONSERVATIVE.nonsterile_component,
  sterility_tested: MOST_CONSERVATIVE.sterility_tested,
  defaulted: true,
});

/**
 * The condition after a body: a sterile preparation keeps its condition unless the body sends one
 * (null sends it back to the default), and takes the default when it has none; any other preparation
 * has none.
 */
export function mergedCondition(
  sterile: boolean,
  current: SterileConditionView | null,
  input: SterileConditionInput | null | undefined,
): SterileConditionView | null {
  if (!sterile) return null;
  if (input === undefined) return current ?? DEFAULTED_CONDITION;
  if (input === null) return DEFAULTED_CONDITION;
  return { ...input, defaulted: false };
}

export function sterileColumns(view: SterileConditionView | null): SterileColumns {
  if (view === null) return { ...NO_STERILE_CONDITION };
  return {
    sterile_category: view.category,
    sterile_preparation: view.preparation,
    sterile_nonsterile_component: view.nonsterile_component ? 1 : 0,
    sterile_tested: view.sterility_tested ? 1 : 0,
    sterile_defaulted: view.defaulted ? 1 : 0,
  };
}
