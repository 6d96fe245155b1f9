/** Money is stored as integer cents and shown as US dollars with cents (3244 ↔ 32.44). */

/** A price written in dollars: a finite number, at least 0, with at most two decimals. */
export function isDollarAmount(value: number): boolean {
  if (!Number.isFinite(value) || value < 0) return false;
  // Compare in cents with a tolerance for binary fractions (12.34 * 100 = 1233.9999…).
  const cents = value * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}

/** Dollars (validated by isDollarAmount) → integer cents. */
export const dollarsToCents = (dollars: number): number => Math.round(dollars * 100);

/** Integer cents → dollars with cents, as the spec writes prices (3244 → 32.44). */
export const centsToDollars = (cents: number): number => Math.round(cents) / 100;
