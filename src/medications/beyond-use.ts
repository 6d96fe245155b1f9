/**
 * Beyond-use dates of compounded preparations. Pure: every date is an input, nothing reads a clock.
 *
 * @see USP General Chapter <795> "Pharmaceutical Compounding — Nonsterile Preparations" (official
 * 1 November 2023), Table 4: the default BUDs of non-sterile preparations, counted from the day of
 * compounding. docs/compounding.md reproduces the table.
 */
import { isCalendarDate } from '../shared/calendar-date.js';

export const PREPARATIONS = ['non_sterile', 'sterile'] as const;
export type Preparation = (typeof PREPARATIONS)[number];

export const BUD_CATEGORIES = ['solid', 'non_aqueous', 'aqueous_preserved', 'aqueous_non_preserved'] as const;
export type BudCategory = (typeof BUD_CATEGORIES)[number];

export const STORAGES = ['room', 'refrigerated', 'frozen'] as const;
export type Storage = (typeof STORAGES)[number];

interface CategoryRule {
  /** The longest BUD USP <795> allows, in days from the day of compounding. */
  days: number;
  /** The storage conditions under which that BUD holds. */
  storage: readonly Storage[];
}

/** USP <795> (2023), Table 4. */
export const BUD_TABLE: Readonly<Record<BudCategory, CategoryRule>> = Object.freeze({
  solid: { days: 180, storage: ['room', 'refrigerated'] },
  non_aqueous: { days: 90, storage: ['room', 'refrigerated'] },
  aqueous_preserved: { days: 35, storage: ['room', 'refrigerated'] },
  aqueous_non_preserved: { days: 14, storage: ['refrigerated'] },
});

/** The most days a non-sterile preparation of this category may be given. */
export const maxBeyondUseDays = (category: BudCategory): number => BUD_TABLE[category].days;

/** True when the storage keeps the category's BUD valid (aqueous_non_preserved must be refrigerated). */
export const storageAllowed = (category: BudCategory, storage: Storage): boolean => BUD_TABLE[category].storage.includes(storage);

/** What a preparation's BUD depends on: the formulary entry's formula fields. */
export interface BudFormula {
  preparation: Preparation;
  bud_category: BudCategory;
  /** The entry's override: at most the category's days for non-sterile (a sterile one's: sterile-beyond-use.ts). */
  beyond_use_days: number | null;
}

/** A day count added to a YYYY-MM-DD calendar date, on the proleptic Gregorian calendar (UTC). */
export function addDays(date: string, days: number): string {
  if (!isCalendarDate(date)) throw new RangeError(`not a calendar date: ${date}`);
  const at = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(at).toISOString().slice(0, 10);
}

/**
 * What is wrong with a non-sterile formula's BUD fields, by field name, or an empty object: an
 * override longer than its category allows; a storage under which the category's BUD does not hold.
 * A sterile one's rules are USP <797>'s (sterile-beyond-use.ts sterileProblems).
 */
export function budProblems(fields: BudFormula & { storage: Storage }): Record<string, string> {
  const problems: Record<string, string> = {};
  const max = maxBeyondUseDays(fields.bud_category);
  if (fields.preparation === 'non_sterile' && fields.beyond_use_days !== null && fields.beyond_use_days > max) {
    problems.beyond_use_days = `must not be longer than ${max} days for ${fields.bud_category} (USP <795>)`;
  }
  if (fields.preparation === 'non_sterile' && !storageAllowed(fields.bud_category, fields.storage)) {
    problems.storage = `must be ${BUD_TABLE[fields.bud_category].storage.join(' or ')} for ${fields.bud_category}`;
  }
  return problems;
}
