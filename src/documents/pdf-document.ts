/**
 * What every document of this folder shares: a pdfkit document whose bytes depend on its input only,
 * collected into a Buffer, and text made printable in the standard fonts.
 *
 * - pdfkit is loaded on the first document, not when the server starts (the server's memory budget,
 *   issue 19; the same habit as the password-strength lists: test/architecture/lazy-libraries.test.ts).
 * - The 14 standard PDF fonts (Helvetica here) are built into every PDF reader: nothing is fetched or
 *   embedded. Their encoding is WinAnsi (Windows-1252), so a character outside it is replaced (see
 *   `printable`): a name in a script other than Latin prints as `?` until a font is embedded.
 * - Deterministic: the creation date is the input's `generated_at`, and pdfkit derives the file
 *   identifier from the info dictionary, so one input always gives the same bytes.
 */

/** The fonts used: regular and bold Helvetica (standard fonts, never embedded). */
export const FONT = { regular: 'Helvetica', bold: 'Helvetica-Bold' } as const;

/** The document's metadata: `generated_at` (an ISO 8601 instant) is its CreationDate. */
export interface DocumentMeta {
  title: string;
  author: string;
  generated_at: string;
}

export interface NewDocument {
  /** Page size in points (72 to the inch). */
  size: readonly [number, number];
  margin: number;
  meta: DocumentMeta;
  /** Keep every page until the end, to write on them again (page numbers). */
  bufferPages?: boolean;
}

/** A pdfkit document and the promise of its bytes, which settles once `doc.end()` is called. */
export async function openDocument(options: NewDocument): Promise<{ doc: PDFKit.PDFDocument; bytes: Promise<Buffer> }> {
  const created = new Date(options.meta.generated_at);
  if (Number.isNaN(created.getTime())) throw new RangeError(`generated_at is not an instant: ${options.meta.generated_at}`);
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: [...options.size],
    margin: options.margin,
    bufferPages: options.bufferPages ?? false,
    font: FONT.regular,
    info: {
      Title: printable(options.meta.title),
      Author: printable(options.meta.author),
      Creator: 'Partner Fulfillment API',
      Producer: 'PDFKit',
      CreationDate: created,
      ModDate: created,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const bytes = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, bytes };
}

// Windows-1252's characters between 0x80 and 0x9F (the rest of it is Latin-1, U+0020–U+007E and U+00A0–U+00FF).
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const REPLACEMENTS: Readonly<Record<string, string>> = {
  '≥': '>=',
  '≤': '<=',
  '→': '->',
  '−': '-',
  μ: 'µ',
  '\u2009': ' ',
  '\u202f': ' ',
  '\u2011': '-',
};

const inWinAnsi = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(char);
};

/**
 * Text the standard fonts can show: NFC; tabs as spaces; other control characters dropped (line
 * breaks kept only with `lines`) and so are combining marks left over; a few symbols spelt in ASCII (≥ as >=); a letter outside the
 * encoding without its accent when that brings it in (ő as o); anything else `?`.
 */
export function printable(text: string, lines = false): string {
  let out = '';
  for (const char of text.normalize('NFC').replaceAll('\r\n', '\n').replaceAll('\t', ' ')) {
    if (char === '\n') out += lines ? '\n' : ' ';
    else if (inWinAnsi(char)) out += char;
    else if (REPLACEMENTS[char] !== undefined) out += REPLACEMENTS[char];
    else if (/\p{Cc}|\p{Cf}|\p{M}/u.test(char)) continue;
    else {
      const bare = char.normalize('NFD').replace(/\p{M}/gu, '');
      out += bare !== '' && Array.from(bare).every(inWinAnsi) ? bare : '?';
    }
  }
  return out;
}
