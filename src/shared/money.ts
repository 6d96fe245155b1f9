import { decimalPlaces } from './decimals.js';

/** Money is stored as integer cents and shown as US dollars with cents (3244 ↔ 32.44). */

/** A price written in dollars: a finite number, at least 0, with at most two decimals (`5e-324` has 324). */
export function isDollarAmount(value: number): boolean {
  return Number.isFinite(value) && value >= 0 && decimalPlaces(value) <= 2;
}

/** Dollars (validated by isDollarAmount) → integer cents. */
export const dollarsToCents = (dollars: number): number => Math.round(dollars * 100);

/** Integer cents → dollars with cents, as the spec writes prices (3244 → 32.44). */
export const centsToDollars = (cents: number): number => Math.round(cents) / 100;
