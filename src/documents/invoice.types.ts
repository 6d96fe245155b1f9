/**
 * What an invoice document shows (issue 43, item 5; docs/billing.md#invoice-documents). Money is
 * integer cents (USD) everywhere; the totals are computed from the lines (invoice-totals.ts), never
 * given, so that the document cannot show totals its lines do not add up to. No PHI: a line names
 * the order, the partner's reference and the preparation, never the patient.
 */
import type { PharmacyIdentity } from '../pharmacy-identity.js';

export const INVOICE_STATUSES = ['draft', 'issued', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** A charge: one shipped order's preparation. */
export interface InvoiceLine {
  order_id: string;
  /** The partner's own reference for the order, when it gave one. */
  partner_reference: string | null;
  /** The preparation's name (the formulary's). */
  description: string;
  /** As it should read, e.g. `2`, or `10 mL`. */
  quantity: string;
  amount_cents: number;
}

/** A credit: what the pharmacy gives back (a refund, a replacement at its cost). `amount_cents` is positive. */
export interface InvoiceCredit {
  order_id: string | null;
  partner_reference: string | null;
  reason: string;
  amount_cents: number;
}

export interface InvoiceBillTo {
  clinic_id: string;
  name: string;
  /** The billing address, a line each; empty when the clinic has none on file. */
  address_lines: readonly string[];
}

export interface InvoiceInput {
  /** When the document was produced (ISO 8601 instant): the PDF's creation date. */
  generated_at: string;
  /** Null while a draft: a number is given when it is issued, and never reused. */
  invoice_number: string | null;
  status: InvoiceStatus;
  /** YYYY-MM-DD; null while a draft. */
  issued_on: string | null;
  due_on: string | null;
  /** The billing period, first and last day included (YYYY-MM-DD). */
  period: { start: string; end: string };
  issuer: PharmacyIdentity;
  bill_to: InvoiceBillTo;
  lines: readonly InvoiceLine[];
  credits: readonly InvoiceCredit[];
  amount_paid_cents: number;
}
