/**
 * The rules of a fill (docs/compounding.md#the-fill). Pure: the order's items, the body and the
 * clock's time are inputs.
 */
import type { ErrorDetails } from '../errors.js';
import type { BudCategory, Preparation, Storage } from '../medications/beyond-use.js';
import { fillBeyondUse, localDateOf, type FillBeyondUse, type FillFormula } from '../medications/fill-beyond-use.js';
import { conditionForLimits, sterileConditionOf } from '../medications/sterile-condition.js';
import { isCalendarDate } from '../shared/calendar-date.js';
import type { ItemToFill } from './order-fill.repository.js';
import type { FillInput } from './order-fill.schemas.js';
import { ingredientsOf } from '../medications/formula.js';

/** The formula of an item's formulary entry, as a fill uses it (its version: the one the fill is made from). */
export interface ItemFormula extends FillFormula {
  ingredients: { name: string; active: boolean }[];
  version: number | null;
}

/** The item's entry's formula; null when the entry has none (or the item matched no entry). */
export function formulaOfItem(item: ItemToFill): ItemFormula | null {
  if (item.preparation === null || item.bud_category === null || item.storage === null) return null;
  const ingredients = ingredientsOf(item.ingredients) ?? [];
  return {
    preparation: item.preparation as Preparation,
    bud_category: item.bud_category as BudCategory,
    beyond_use_days: item.beyond_use_days,
    storage: item.storage as Storage,
    sterile: item.preparation === 'sterile' ? conditionForLimits(sterileConditionOf(item)) : null,
    ingredients: ingredients.map(({ name, active }) => ({ name, active })),
    version: item.formula_version,
  };
}

/** What the server records of a fill beside its lot: its beyond-use date and basis, the entry's storage and formula version. */
export interface ComputedFill {
  beyond_use_date: string | null;
  beyond_use_at: string | null;
  beyond_use_basis: FillBeyondUse['basis'] | null;
  beyond_use_limiting_lot: string | null;
  storage: Storage | null;
  formula_version: number | null;
}

/**
 * The beyond-use date (medications/fill-beyond-use.ts: the standard's limit, the entry's days, the
 * ingredient lots' expiry, on the pharmacy's calendar `timeZone`) with what decided it, the entry's
 * storage and its formula's version; all null without a formula.
 */
export function computedFill(
  formula: ItemFormula | null,
  compoundedAt: string,
  lots: readonly { lot_number: string; expires_on: string }[],
  timeZone: string,
): ComputedFill {
  if (formula === null) {
    return {
      beyond_use_date: null,
      beyond_use_at: null,
      beyond_use_basis: null,
      beyond_use_limiting_lot: null,
      storage: null,
      formula_version: null,
    };
  }
  const bud = fillBeyondUse(formula, compoundedAt, timeZone, lots);
  return {
    beyond_use_date: bud.beyond_use_date,
    beyond_use_at: bud.beyond_use_at,
    beyond_use_basis: bud.basis,
    beyond_use_limiting_lot: bud.limiting_lot,
    storage: formula.storage,
    formula_version: formula.version,
  };
}

/** A date-time as stored (UTC, milliseconds), or null when the calendar has no such instant. */
export function storedForm(value: string): string | null {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return null;
  const stored = new Date(time).toISOString();
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(stored) ? stored : null;
}

/**
 * What is wrong with a fill's body, by field: `invalid` (a 400: an item not in the order, named
 * twice, compounded in the future, an ingredient lot expired before the day of compounding) and
 * `filled` (a 409: an item that already has its fill).
 */
export function fillProblems(
  input: FillInput,
  items: readonly ItemToFill[],
  now: Date,
  timeZone: string,
): { invalid: ErrorDetails; filled: ErrorDetails } {
  const invalid: ErrorDetails = {};
  const filled: ErrorDetails = {};
  const byId = new Map(items.map((item) => [item.id, item]));
  const firstIndex = new Map<string, number>();
  input.items.forEach((entry, i) => {
    const at = `items[${i}]`;
    const item = byId.get(entry.item_id);
    const earlier = firstIndex.get(entry.item_id);
    if (item === undefined) invalid[`${at}.item_id`] = 'is not an item of this medication request';
    else if (earlier !== undefined) invalid[`${at}.item_id`] = `names the same item as items[${earlier}]`;
    else if (item.fill !== null) filled[`${at}.item_id`] = `is already filled (${item.medication}, lot ${item.fill.lot_number})`;
    if (earlier === undefined) firstIndex.set(entry.item_id, i);

    const compoundedAt = storedForm(entry.compounded_at);
    if (compoundedAt === null) invalid[`${at}.compounded_at`] = 'must be an ISO 8601 date-time';
    else if (compoundedAt > now.toISOString()) invalid[`${at}.compounded_at`] = 'must not be in the future';
    (entry.ingredient_lots ?? []).forEach((lot, k) => {
      const field = `${at}.ingredient_lots[${k}].expires_on`;
      if (!isCalendarDate(lot.expires_on)) invalid[field] = 'must be a real calendar date written YYYY-MM-DD';
      else if (compoundedAt !== null && lot.expires_on < localDateOf(compoundedAt, timeZone))
        invalid[field] = `is before the day of compounding (${localDateOf(compoundedAt, timeZone)}): the lot had expired`;
    });
  });
  return { invalid, filled };
}

/** A generated lot of the development server's fills: `DEV-` and 8 characters of a fresh id. */
export const generatedLot = (id: string): string => `DEV-${id.replace(/-/g, '').slice(-8).toUpperCase()}`;
