/**
 * An invoice as PDF (issue 43, item 5), laid out as Stripe's: who issues it and who pays it, the
 * number, status and dates, a line per charge, the credits, then subtotal, credits, total, amount
 * paid and amount due. US Letter; lines continue on further pages, each numbered.
 */
import { formatDate, formatUsd } from './formats.js';
import { invoiceTotals, type InvoiceTotals } from './invoice-totals.js';
import type { InvoiceInput, InvoiceStatus } from './invoice.types.js';
import { FONT, openDocument, printable } from './pdf-document.js';
import { drawTable, footers, room, type Column, type TableStyle } from './table.js';

const LETTER = [612, 792] as const;
const MARGIN = 54;
const WIDTH = LETTER[0] - 2 * MARGIN;
const LINE_STYLE: TableStyle = { size: 8.5, padding: 3, rules: true };

export const STATUS_TEXT: Readonly<Record<InvoiceStatus, string>> = {
  draft: 'Draft',
  issued: 'Issued',
  paid: 'Paid',
  void: 'Void',
};

const LINE_COLUMNS: readonly Column[] = [
  { header: 'Order', width: 172 },
  { header: 'Partner reference', width: 90 },
  { header: 'Preparation', width: 132 },
  { header: 'Qty', width: 40, align: 'right' },
  { header: 'Amount', width: WIDTH - 172 - 90 - 132 - 40, align: 'right' },
];

const CREDIT_COLUMNS: readonly Column[] = [
  { header: 'Order', width: 172 },
  { header: 'Partner reference', width: 90 },
  { header: 'Reason', width: 172 },
  { header: 'Amount', width: WIDTH - 172 - 90 - 172, align: 'right' },
];

/** The invoice's heading fields: number, status, dates and period. */
export function invoiceFields(input: InvoiceInput): [string, string][] {
  return [
    ['Invoice number', input.invoice_number ?? 'None yet (draft)'],
    ['Status', STATUS_TEXT[input.status]],
    ['Issue date', input.issued_on === null ? 'Not issued' : formatDate(input.issued_on)],
    ['Due date', input.due_on === null ? 'Not issued' : formatDate(input.due_on)],
    ['Period', `${formatDate(input.period.start)} to ${formatDate(input.period.end)}`],
  ];
}

/** The totals block, label and amount. */
export function totalRows(totals: InvoiceTotals): [string, string][] {
  return [
    ['Subtotal', formatUsd(totals.subtotal_cents)],
    ['Credits', formatUsd(-totals.credits_cents)],
    ['Total', formatUsd(totals.total_cents)],
    ['Amount paid', formatUsd(totals.amount_paid_cents)],
    ['Amount due', formatUsd(totals.amount_due_cents)],
  ];
}

function block(doc: PDFKit.PDFDocument, title: string, lines: readonly string[], x: number, y: number, width: number): number {
  doc.font(FONT.bold).fontSize(8).fillColor('#555555').text(title.toUpperCase(), x, y, { width });
  doc.fillColor('black');
  lines.forEach((line, index) => {
    doc
      .font(index === 0 ? FONT.bold : FONT.regular)
      .fontSize(9.5)
      .text(printable(line), x, doc.y + (index === 0 ? 2 : 0), { width });
  });
  return doc.y;
}

export async function renderInvoice(input: InvoiceInput): Promise<Buffer> {
  const totals = invoiceTotals(input);
  const { doc, bytes } = await openDocument({
    size: LETTER,
    margin: MARGIN,
    bufferPages: true,
    meta: { title: `Invoice ${input.invoice_number ?? '(draft)'}`, author: input.issuer.name, generated_at: input.generated_at },
  });
  const heading = input.status === 'issued' || input.status === 'paid' ? 'Invoice' : `Invoice (${STATUS_TEXT[input.status]})`;
  doc
    .font(FONT.bold)
    .fontSize(20)
    .text(heading, MARGIN, MARGIN, { width: WIDTH / 2 });
  const headingEnd = doc.y;
  // The number, status and dates in the right half, as on Stripe's.
  const fieldsEnd = drawTable(
    doc,
    [
      { header: '', width: 90, bold: true },
      { header: '', width: 162 },
    ],
    invoiceFields(input),
    MARGIN,
    {
      headerless: true,
      left: MARGIN + WIDTH / 2,
      style: { size: 9, padding: 1.5, rules: false },
    },
  );
  const issuer = input.issuer;
  const from = [
    issuer.name,
    issuer.address_line_1,
    ...(issuer.address_line_2 === null ? [] : [issuer.address_line_2]),
    `${issuer.city}, ${issuer.state} ${issuer.postal_code}`,
    ...(issuer.phone === null ? [] : [issuer.phone]),
  ];
  const top = Math.max(fieldsEnd, headingEnd) + 18;
  const fromEnd = block(doc, 'From', from, MARGIN, top, WIDTH / 2 - 10);
  const toEnd = block(
    doc,
    'Bill to',
    [input.bill_to.name, ...input.bill_to.address_lines, `Clinic ${input.bill_to.clinic_id}`],
    MARGIN + WIDTH / 2,
    top,
    WIDTH / 2,
  );

  let y = Math.max(fromEnd, toEnd) + 20;
  doc.font(FONT.bold).fontSize(11).text(`Charges (${input.lines.length})`, MARGIN, y, { width: WIDTH });
  const lines = input.lines.map((line) => [
    line.order_id,
    line.partner_reference ?? '',
    line.description,
    line.quantity,
    formatUsd(line.amount_cents),
  ]);
  y = drawTable(doc, LINE_COLUMNS, lines, doc.y + 4, { style: LINE_STYLE });
  if (input.credits.length > 0) {
    y = room(doc, y + 16, 40);
    doc.font(FONT.bold).fontSize(11).text(`Credits (${input.credits.length})`, MARGIN, y, { width: WIDTH });
    const credits = input.credits.map((credit) => [
      credit.order_id ?? '',
      credit.partner_reference ?? '',
      credit.reason,
      formatUsd(-credit.amount_cents),
    ]);
    y = drawTable(doc, CREDIT_COLUMNS, credits, doc.y + 4, { style: LINE_STYLE });
  }
  y = room(doc, y + 14, 5 * 16);
  totalRows(totals).forEach(([label, amount], index, all) => {
    const last = index === all.length - 1;
    doc.font(last ? FONT.bold : FONT.regular).fontSize(last ? 11 : 9.5);
    doc.text(label, MARGIN + WIDTH - 260, y, { width: 150 });
    doc.text(amount, MARGIN + WIDTH - 113, y, { width: 110, align: 'right' });
    y += last ? 16 : 14;
  });
  footers(doc, `Invoice ${input.invoice_number ?? '(draft)'} · ${input.bill_to.name}`);
  doc.end();
  return bytes;
}
