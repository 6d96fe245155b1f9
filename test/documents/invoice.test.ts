import { describe, expect, it } from 'vitest';
import { renderInvoice } from '../../src/documents/invoice.js';
import { invoiceTotals } from '../../src/documents/invoice-totals.js';
import { invoiceInput, invoiceLine } from './inputs.js';
import { readPdf } from './pdf-text.js';

describe('the invoice document', () => {
  it('when an issued invoice is printed, then it shows the issuer, the clinic, the number, status, dates, period, lines and credits', async () => {
    const input = invoiceInput();
    const { pages, text } = await readPdf(await renderInvoice(input));

    expect(pages).toHaveLength(1);
    for (const element of [
      'Invoice',
      'Invoice number INV-2026-0007',
      'Status Issued',
      'Issue date Apr 1, 2026',
      'Due date May 1, 2026',
      'Period Mar 1, 2026 to Mar 31, 2026',
      'Riverside Compounding Pharmacy 200 Harbor Way Suite 4 Columbus, OH 43215 (614) 555-0142',
      'Acme Health Clinic 1 Main St Austin, TX 78701 Clinic 0195a3c0-1111-7000-8000-000000000001',
      'Order Partner reference Preparation Qty Amount',
      `${input.lines[0]?.order_id ?? ''} ACME-1 Semaglutide 2.5 mg/mL injection 1 $199.99`,
      `${input.lines[1]?.order_id ?? ''} ACME-2 Tirzepatide 10 mg/mL injection 2 $450.01`,
      `${input.lines[2]?.order_id ?? ''} Progesterone 100 mg capsules 30 $33.33`,
      `Credits (1)`,
      `${input.lines[1]?.order_id ?? ''} ACME-2 Replacement shipped at our cost -$11.11`,
    ]) {
      expect(text).toContain(element);
    }
  });

  it('when the lines and credits are added, then subtotal, credits, total, paid and due add up to the cent', async () => {
    const { text } = await readPdf(await renderInvoice(invoiceInput()));

    // 199.99 + 450.01 + 33.33 = 683.33; less 11.11 = 672.22; less 200.00 paid = 472.22.
    expect(text).toContain('Subtotal $683.33 Credits -$11.11 Total $672.22 Amount paid $200.00 Amount due $472.22');
  });

  it('when amounts would go wrong in floating point, then the cents stay exact and large sums are grouped', () => {
    const tenths = invoiceTotals({
      lines: [invoiceLine(1, { amount_cents: 10 }), invoiceLine(2, { amount_cents: 20 })],
      credits: [],
      amount_paid_cents: 0,
    });
    const large = invoiceTotals({
      lines: [invoiceLine(1, { amount_cents: 123_456_789 }), invoiceLine(2, { amount_cents: 1 })],
      credits: [{ order_id: null, partner_reference: null, reason: 'Goodwill', amount_cents: 90 }],
      amount_paid_cents: 123_456_700,
    });

    expect(tenths.total_cents).toBe(30);
    expect(large).toEqual({
      subtotal_cents: 123_456_790,
      credits_cents: 90,
      total_cents: 123_456_700,
      amount_paid_cents: 123_456_700,
      amount_due_cents: 0,
    });
  });

  it('when a large invoice is printed, then the amounts are written exactly in dollars with thousands grouped', async () => {
    const input = invoiceInput({ lines: [invoiceLine(1, { amount_cents: 123_456_789 })], credits: [], amount_paid_cents: 0 });
    const { text } = await readPdf(await renderInvoice(input));

    expect(text).toContain('Subtotal $1,234,567.89 Credits $0.00 Total $1,234,567.89 Amount paid $0.00 Amount due $1,234,567.89');
  });

  it.each([
    ['a fractional cent', { lines: [invoiceLine(1, { amount_cents: 10.5 })] }],
    ['a negative line', { lines: [invoiceLine(1, { amount_cents: -100 })] }],
    ['a negative credit', { credits: [{ order_id: null, partner_reference: null, reason: 'x', amount_cents: -1 }] }],
    ['a payment in dollars', { amount_paid_cents: 12.34 }],
  ])('when an input has %s, then no document is made', async (_what, overrides) => {
    await expect(renderInvoice(invoiceInput(overrides))).rejects.toThrow(RangeError);
  });

  it('when a month holds sixty orders, then the lines continue on further pages, numbered, and the totals close the last', async () => {
    const lines = Array.from({ length: 60 }, (_, index) => invoiceLine(index + 1, { amount_cents: 1_000 + index }));
    const { pages, text } = await readPdf(await renderInvoice(invoiceInput({ lines, credits: [], amount_paid_cents: 0 })));

    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, index) => {
      expect(page.text).toContain(`Page ${index + 1} of ${pages.length}`);
      expect(page.text).toContain('Order Partner reference Preparation Qty Amount');
    });
    for (const line of lines) expect(text).toContain(line.order_id);
    // 60 × $10.00 + (0 + 1 + … + 59) cents = $600.00 + $17.70.
    expect(pages.at(-1)?.text).toContain('Total $617.70');
  });

  it('when a draft is printed, then it says so and shows no number or dates yet', async () => {
    const draft = invoiceInput({ status: 'draft', invoice_number: null, issued_on: null, due_on: null });
    const { text } = await readPdf(await renderInvoice(draft));

    expect(text).toContain('Invoice (Draft)');
    expect(text).toContain('Invoice number None yet (draft)');
    expect(text).toContain('Issue date Not issued');
  });

  it('when the same invoice is printed twice, then the bytes are the same', async () => {
    const first = await renderInvoice(invoiceInput());

    expect(first.equals(await renderInvoice(invoiceInput()))).toBe(true);
    expect((await readPdf(first)).info.CreationDate).toBe('D:20260401050000Z');
  });
});
