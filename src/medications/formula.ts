/**
 * A formulary entry's formula (issue 30, item 1; docs/compounding.md): its fields as columns and
 * as the API shows them, and the rules a whole formula keeps. Pure: no I/O.
 */
import type { ErrorDetails } from '../errors.js';
import { budProblems, type BudCategory, type Preparation, type Storage } from './beyond-use.js';
import type { IngredientView } from './medication.schemas.js';
import type { MedicationTable } from './medication.tables.js';
import { sterileProblems } from './sterile-beyond-use.js';
import {
  conditionForLimits,
  mergedCondition,
  NO_STERILE_CONDITION,
  sterileColumns,
  sterileConditionOf,
  type SterileColumns,
  type SterileConditionInput,
  type SterileConditionView,
} from './sterile-condition.js';
import { collapseSpaces } from '../shared/text.js';

export type ControlledSchedule = 'II' | 'III' | 'IV' | 'V';

/** The formula's fields as the API shows them: all null for an entry with no formula. */
export interface FormulaFields {
  ingredients: IngredientView[] | null;
  preparation: Preparation | null;
  bud_category: BudCategory | null;
  storage: Storage | null;
  controlled_schedule: ControlledSchedule | null;
  beyond_use_days: number | null;
  restricted_states: string[] | null;
  /** A sterile preparation's USP <797> condition (sterile-condition.ts); null for any other. */
  sterile_condition: SterileConditionView | null;
}

/** The fields a body may send: absent leaves the field as it was. */
export type FormulaInput = { [K in Exclude<keyof FormulaFields, 'sterile_condition'>]?: FormulaFields[K] | undefined } & {
  sterile_condition?: SterileConditionInput | null | undefined;
};

export type FormulaColumns = Pick<
  MedicationTable,
  'ingredients' | 'preparation' | 'bud_category' | 'storage' | 'controlled_schedule' | 'beyond_use_days' | 'restricted_states'
> &
  SterileColumns;

export const NO_FORMULA: FormulaColumns = Object.freeze({
  ingredients: null,
  preparation: null,
  bud_category: null,
  storage: null,
  controlled_schedule: null,
  beyond_use_days: null,
  restricted_states: null,
  ...NO_STERILE_CONDITION,
});

/*
 * The formula's JSON columns are written and read here only (an architecture test holds it):
 * `ingredients` and `restricted_states` of an entry, `formula` of a formula version.
 */

/** An entry's `ingredients` column read: null for an entry with no formula. */
export const ingredientsOf = (stored: string | null): IngredientView[] | null =>
  stored === null ? null : (JSON.parse(stored) as IngredientView[]);

/** An entry's `restricted_states` column read: the states it may not be shipped to, none when null. */
export const restrictedStatesOf = (stored: string | null): string[] => (stored === null ? [] : (JSON.parse(stored) as string[]));

/** A formula version's `formula` column: the formula's fields as the API showed them then. */
export const formulaVersionText = (formula: FormulaFields): string => JSON.stringify(formula);

/** A formula version's `formula` column read. */
export const formulaOfVersion = (stored: string): FormulaFields => JSON.parse(stored) as FormulaFields;

/** The formula a row holds (migration 022's columns, JSON text parsed). */
export function formulaOf(row: FormulaColumns): FormulaFields {
  return {
    ingredients: ingredientsOf(row.ingredients),
    preparation: row.preparation as Preparation | null,
    bud_category: row.bud_category as BudCategory | null,
    storage: row.storage as Storage | null,
    controlled_schedule: row.controlled_schedule as ControlledSchedule | null,
    beyond_use_days: row.beyond_use_days,
    restricted_states: row.restricted_states === null ? null : restrictedStatesOf(row.restricted_states),
    sterile_condition: sterileConditionOf(row),
  };
}

const REQUIRED = ['ingredients', 'preparation', 'bud_category', 'storage'] as const;

/**
 * The columns of `current` with `input` applied, or the fields that break a rule. A formula is
 * whole or absent: once any of its fields is given, `ingredients` (with at least one active),
 * `preparation`, `bud_category` and `storage` are required; `controlled_schedule` defaults to null
 * and `restricted_states` to none. Then the USP <795> rules of beyond-use.ts (budProblems).
 */
export function applyFormula(
  current: FormulaFields,
  input: FormulaInput,
): { columns: FormulaColumns; problems: null } | { columns: null; problems: ErrorDetails } {
  const merged: FormulaFields = {
    ingredients: input.ingredients === undefined ? current.ingredients : input.ingredients,
    preparation: input.preparation === undefined ? current.preparation : input.preparation,
    bud_category: input.bud_category === undefined ? current.bud_category : input.bud_category,
    storage: input.storage === undefined ? current.storage : input.storage,
    controlled_schedule: input.controlled_schedule === undefined ? current.controlled_schedule : input.controlled_schedule,
    beyond_use_days: input.beyond_use_days === undefined ? current.beyond_use_days : input.beyond_use_days,
    restricted_states: input.restricted_states === undefined ? current.restricted_states : input.restricted_states,
    sterile_condition: null,
  };
  const given = Object.values(merged).some((value) => value !== null) || (input.sterile_condition ?? null) !== null;
  if (!given) return { columns: { ...NO_FORMULA }, problems: null };
  const sterile = merged.preparation === 'sterile';
  merged.sterile_condition = mergedCondition(sterile, current.sterile_condition, input.sterile_condition);

  const problems: ErrorDetails = {};
  for (const field of REQUIRED) if (merged[field] === null) problems[field] = 'is required once a formula is given';
  if (merged.ingredients !== null && !merged.ingredients.some((ingredient) => ingredient.active))
    problems.ingredients = 'must include at least one active ingredient';
  if (merged.preparation !== null && merged.bud_category !== null && merged.storage !== null) {
    Object.assign(
      problems,
      budProblems({
        preparation: merged.preparation,
        bud_category: merged.bud_category,
        storage: merged.storage,
        beyond_use_days: merged.beyond_use_days,
      }),
    );
    if (sterile)
      Object.assign(
        problems,
        sterileProblems(conditionForLimits(merged.sterile_condition), merged.storage, merged.beyond_use_days),
      );
  }
  if (!sterile && input.sterile_condition !== undefined && input.sterile_condition !== null) {
    problems.sterile_condition = 'is only for a sterile preparation (USP <797>)';
  }
  if (Object.keys(problems).length > 0) return { columns: null, problems };

  const states = [...new Set((merged.restricted_states ?? []).map((code) => code.toUpperCase()))].sort();
  return {
    columns: {
      ingredients: JSON.stringify(
        (merged.ingredients ?? []).map(({ name, strength, unit, active }) => ({
          name: collapseSpaces(name),
          strength: strength.trim(),
          unit: unit.trim(),
          active,
        })),
      ),
      preparation: merged.preparation,
      bud_category: merged.bud_category,
      storage: merged.storage,
      controlled_schedule: merged.controlled_schedule,
      beyond_use_days: merged.beyond_use_days,
      restricted_states: JSON.stringify(states),
      ...sterileColumns(merged.sterile_condition),
    },
    problems: null,
  };
}
