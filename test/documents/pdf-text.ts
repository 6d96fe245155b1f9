/**
 * Reads a PDF back as a reader does (pdf.js, Mozilla's PDF reader, legacy build for Node): the
 * text of each page, and each piece of text with its size and place, to assert what a person sees.
 */
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

const STANDARD_FONTS = `${path.resolve(import.meta.dirname, '../../node_modules/pdfjs-dist/standard_fonts')}/`;

export interface TextPiece {
  text: string;
  /** The font's size as drawn, in points. */
  size: number;
  x: number;
  /** From the top of the page, as the eye reads. */
  top: number;
  width: number;
}

export interface PdfPage {
  width: number;
  height: number;
  pieces: TextPiece[];
  /** The page's text, pieces joined by spaces, whitespace collapsed (NFC). */
  text: string;
}

export interface PdfRead {
  pages: PdfPage[];
  /** All pages' text. */
  text: string;
  info: Record<string, unknown>;
}

const normalize = (text: string): string => text.normalize('NFC').replace(/\s+/g, ' ').trim();

export async function readPdf(bytes: Buffer): Promise<PdfRead> {
  const pdf = await getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: STANDARD_FONTS,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
  const pages: PdfPage[] = [];
  for (let number = 1; number <= pdf.numPages; number++) {
    const page = await pdf.getPage(number);
    const [, , width = 0, height = 0] = page.view;
    const content = await page.getTextContent();
    const pieces: TextPiece[] = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str.trim() === '') continue;
      const [a = 0, b = 0, , , x = 0, y = 0] = item.transform as number[];
      const size = Math.hypot(a, b);
      pieces.push({ text: normalize(item.str), size, x, top: height - y - size, width: item.width });
    }
    pages.push({ width, height, pieces, text: normalize(pieces.map((piece) => piece.text).join(' ')) });
  }
  const meta = await pdf.getMetadata();
  await pdf.destroy();
  return { pages, text: pages.map((page) => page.text).join(' '), info: meta.info as Record<string, unknown> };
}

/** The pieces whose text contains `part`. */
export const piecesWith = (page: PdfPage, part: string): TextPiece[] => page.pieces.filter((piece) => piece.text.includes(part));
