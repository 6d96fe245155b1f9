/**
 * An invoice's totals from its lines, in integer cents (as Stripe's invoice: subtotal, credits,
 * total, amount paid, amount due). Pure. Every amount is checked to be a whole, non-negative number
 * of cents, so that a float or a negative sign in the input is refused here rather than printed.
 */
import { sumCents } from './formats.js';
import type { InvoiceInput } from './invoice.types.js';

export interface InvoiceTotals {
  subtotal_cents: number;
  credits_cents: number;
  /** Subtotal less credits: negative when more was credited than charged in the period. */
  total_cents: number;
  amount_paid_cents: number;
  /** Total less what was paid; negative means the clinic paid more than the total (a balance in its favour). */
  amount_due_cents: number;
}

function nonNegative(cents: number, what: string): number {
  if (!Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`${what} must be a whole number of cents, at least 0: ${cents}`);
  return cents;
}

export function invoiceTotals(input: Pick<InvoiceInput, 'lines' | 'credits' | 'amount_paid_cents'>): InvoiceTotals {
  const subtotal = sumCents(input.lines.map((line, index) => nonNegative(line.amount_cents, `lines[${index}].amount_cents`)));
  const credits = sumCents(
    input.credits.map((credit, index) => nonNegative(credit.amount_cents, `credits[${index}].amount_cents`)),
  );
  const paid = nonNegative(input.amount_paid_cents, 'amount_paid_cents');
  const total = sumCents([subtotal, -credits]);
  return {
    subtotal_cents: subtotal,
    credits_cents: credits,
    total_cents: total,
    amount_paid_cents: paid,
    amount_due_cents: sumCents([total, -paid]),
  };
}
