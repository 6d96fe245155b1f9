/**
 * An invoice as CSV (issue 43, item 5): a header, then a row per charge and per credit, for a
 * finance team to reconcile in a spreadsheet. A credit's amount is negative, so that the amount
 * column sums to the invoice's total. Written by the project's one CSV writer (shared/csv.ts:
 * RFC 4180 quoting, formula starts neutralized; amounts, being plain numbers, stay numbers).
 */
import { csvLine } from '../shared/csv.js';
import { centsToDecimal } from './formats.js';
import { invoiceTotals } from './invoice-totals.js';
import type { InvoiceInput } from './invoice.types.js';

export const INVOICE_CSV_COLUMNS = [
  'invoice_number',
  'line_type',
  'order_id',
  'partner_reference',
  'description',
  'quantity',
  'amount_cents',
  'amount_usd',
] as const;

export function invoiceCsv(input: InvoiceInput): string {
  // Checks every amount (whole cents, not negative) before a row is written.
  invoiceTotals(input);
  const number = input.invoice_number;
  const rows = [
    ...input.lines.map((line) => [
      number,
      'charge',
      line.order_id,
      line.partner_reference,
      line.description,
      line.quantity,
      String(line.amount_cents),
      centsToDecimal(line.amount_cents),
    ]),
    ...input.credits.map((credit) => [
      number,
      'credit',
      credit.order_id,
      credit.partner_reference,
      credit.reason,
      null,
      String(-credit.amount_cents),
      centsToDecimal(-credit.amount_cents),
    ]),
  ];
  return [csvLine(INVOICE_CSV_COLUMNS), ...rows.map(csvLine)].join('');
}
