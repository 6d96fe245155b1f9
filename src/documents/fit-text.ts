/**
 * Text that never leaves its box: written at the largest size that fits, down to a minimum, and at
 * the minimum cut with an ellipsis. A label is a fixed piece of paper; text past its edge is text
 * the patient does not read. Measured with the document's own font metrics.
 */
import { printable } from './pdf-document.js';

export interface Box {
  x: number;
  y: number;
  width: number;
  /** For one line, the height is that of a line at the size used. */
  height: number;
}

export interface FitStyle {
  font: string;
  maxSize: number;
  minSize: number;
  /** One line (names, numbers) or wrapped lines (directions). */
  singleLine: boolean;
  lineGap?: number;
}

export interface Fitted {
  text: string;
  size: number;
  truncated: boolean;
}

export const ELLIPSIS = '…';
const STEP = 0.25;

function fits(doc: PDFKit.PDFDocument, text: string, box: Box, style: FitStyle): boolean {
  if (style.singleLine) return doc.widthOfString(text) <= box.width;
  return doc.heightOfString(text, { width: box.width, lineGap: style.lineGap ?? 0 }) <= box.height + 0.01;
}

/** The size and text that fit `box` (the document's font and size are left at those). */
export function fitText(doc: PDFKit.PDFDocument, raw: string, box: Box, style: FitStyle): Fitted {
  const text = printable(raw, !style.singleLine).trim();
  doc.font(style.font);
  for (let size = style.maxSize; size >= style.minSize; size -= STEP) {
    doc.fontSize(size);
    if (fits(doc, text, box, style)) return { text, size, truncated: false };
  }
  doc.fontSize(style.minSize);
  // The longest beginning that fits with the ellipsis (binary search on its length), cut at a space
  // when one is near, so that the last word shown is whole.
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(doc, text.slice(0, mid).trimEnd() + ELLIPSIS, box, style)) low = mid;
    else high = mid - 1;
  }
  let kept = text.slice(0, low);
  const space = kept.lastIndexOf(' ');
  if (space > 0 && low - space < 16) kept = kept.slice(0, space);
  return { text: kept.trimEnd() + ELLIPSIS, size: style.minSize, truncated: true };
}

/**
 * Writes `raw` in `box` at the size that fits; returns the height used. The box's height bounds
 * wrapped text, so pdfkit stops there instead of adding a page.
 */
export function writeFitted(doc: PDFKit.PDFDocument, raw: string, box: Box, style: FitStyle): Fitted & { used: number } {
  const fitted = fitText(doc, raw, box, style);
  const lineGap = style.lineGap ?? 0;
  const used = style.singleLine ? doc.currentLineHeight(true) : doc.heightOfString(fitted.text, { width: box.width, lineGap });
  doc.text(fitted.text, box.x, box.y, {
    width: box.width,
    height: style.singleLine ? used + 1 : box.height + 1,
    lineBreak: !style.singleLine,
    lineGap,
  });
  return { ...fitted, used };
}
