/**
 * Rows of cells on pages that continue: a row too tall for what is left of a page goes to the next,
 * and the header is repeated there. Used by the compounding record and the invoice (a fill of twenty
 * ingredients or a month of orders runs over several pages). Every cell wraps within its column.
 */
import { fitText } from './fit-text.js';
import { FONT, printable } from './pdf-document.js';

export interface Column {
  header: string;
  width: number;
  align?: 'left' | 'right';
  bold?: boolean;
}

export interface TableStyle {
  size: number;
  /** Space between columns and above and below each row's text. */
  padding: number;
  /** Rule under the header and between rows. */
  rules: boolean;
}

export const BODY_STYLE: TableStyle = { size: 9, padding: 3, rules: true };

/** The usable area of the document's current page. */
function area(doc: PDFKit.PDFDocument): { left: number; top: number; bottom: number } {
  const { margins, height } = doc.page;
  return { left: margins.left, top: margins.top, bottom: height - margins.bottom };
}

/** Where a cell's text goes across its column: `padding` off each side between two columns. */
function inner(column: Column, index: number, style: TableStyle): { offset: number; width: number } {
  const offset = index === 0 ? 0 : style.padding;
  return { offset, width: column.width - offset - style.padding };
}

function cellHeight(doc: PDFKit.PDFDocument, text: string, column: Column, index: number, style: TableStyle): number {
  doc.font(column.bold ? FONT.bold : FONT.regular).fontSize(style.size);
  return doc.heightOfString(printable(text, true), { width: inner(column, index, style).width });
}

function drawRow(
  doc: PDFKit.PDFDocument,
  cells: readonly string[],
  columns: readonly Column[],
  at: { x: number; y: number; height: number },
  style: TableStyle,
): void {
  let x = at.x;
  const { y, height } = at;
  columns.forEach((column, index) => {
    const { offset, width } = inner(column, index, style);
    const box = { x: x + offset, y: y + style.padding, width, height: height - 2 * style.padding };
    // A cell taller than a whole page (never in practice) is cut with an ellipsis rather than spill.
    const fitted = fitText(doc, cells[index] ?? '', box, {
      font: column.bold ? FONT.bold : FONT.regular,
      maxSize: style.size,
      minSize: style.size,
      singleLine: false,
    });
    doc.text(fitted.text, box.x, box.y, { width: box.width, height: box.height + 1, align: column.align ?? 'left' });
    x += column.width;
  });
}

function rule(doc: PDFKit.PDFDocument, left: number, y: number, width: number, weight: number): void {
  doc
    .moveTo(left, y)
    .lineTo(left + width, y)
    .lineWidth(weight)
    .stroke();
}

/**
 * Draws `rows` from `y` down (from the left margin, or `left`), with the header (unless `headerless`) on top and again on each new page.
 * Returns where the table ends.
 */
export function drawTable(
  doc: PDFKit.PDFDocument,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  y: number,
  options: { style?: TableStyle; headerless?: boolean; left?: number } = {},
): number {
  const style = options.style ?? BODY_STYLE;
  const left = options.left ?? area(doc).left;
  const width = columns.reduce((sum, column) => sum + column.width, 0);
  const header = columns.map((column) => column.header);
  const headerColumns = columns.map((column) => ({ ...column, bold: true }));
  const heightOf = (cells: readonly string[], cols: readonly Column[]): number =>
    Math.min(
      area(doc).bottom - area(doc).top - 2 * style.padding,
      Math.max(...cols.map((column, index) => cellHeight(doc, cells[index] ?? '', column, index, style))),
    ) +
    2 * style.padding;

  const drawHeader = (at: number): number => {
    if (options.headerless) return at;
    const height = heightOf(header, headerColumns);
    drawRow(doc, header, headerColumns, { x: left, y: at, height }, style);
    rule(doc, left, at + height, width, 0.8);
    return at + height;
  };

  let at = drawHeader(y);
  for (const cells of rows) {
    const height = heightOf(cells, columns);
    if (at + height > area(doc).bottom) {
      doc.addPage();
      at = drawHeader(area(doc).top);
    }
    drawRow(doc, cells, columns, { x: left, y: at, height }, style);
    at += height;
    if (style.rules) rule(doc, left, at, width, 0.25);
  }
  return at;
}

/** Moves to a new page when fewer than `needed` points are left on this one; returns where to write. */
export function room(doc: PDFKit.PDFDocument, y: number, needed: number): number {
  if (y + needed <= area(doc).bottom) return y;
  doc.addPage();
  return area(doc).top;
}

/**
 * Writes `Page n of N` and a line of its own at the foot of every page (the document must buffer its
 * pages). The bottom margin is lifted while writing, or pdfkit would start a page for the footer.
 */
export function footers(doc: PDFKit.PDFDocument, text: string): void {
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const { margins, height, width } = doc.page;
    const bottom = margins.bottom;
    margins.bottom = 0;
    doc.font(FONT.regular).fontSize(7.5);
    doc.text(`${printable(text)}   Page ${index + 1} of ${range.count}`, margins.left, height - bottom + 14, {
      width: width - margins.left - margins.right,
      align: 'right',
      lineBreak: false,
    });
    margins.bottom = bottom;
  }
}
