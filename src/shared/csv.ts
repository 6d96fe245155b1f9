/*
 * CSV as RFC 4180 writes it (lines end in CRLF; a cell holding a comma, a quote or a line break is
 * quoted, its quotes doubled), made safe to open in a spreadsheet (OWASP, "CSV Injection"; CWE-1236;
 * OWASP ASVS 1.2.10):
 *
 * - a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return would be read as a formula,
 *   so it is prefixed with `'`, which spreadsheets show as text (also when spaces or double quotes
 *   come first, which a reader may trim);
 * - a spreadsheet may split a line on another separator than the comma (`;` where the decimal mark
 *   is a comma, a tab, a line break), and then the text after it starts a cell of its own: so a
 *   formula start after a `;`, `,`, tab or line break (spaces and double quotes between allowed) gets its
 *   `'` too (`Dde;=cmd|' /C calc'!A0` is written `Dde;'=cmd|' /C calc'!A0`), as OWASP warns that
 *   checking the first character is not enough;
 * - a cell that is wholly a plain number (`-12.34`) is left as it is: a number calls nothing, and
 *   amounts must stay numbers that add up in the spreadsheet.
 *
 * Pure: no I/O.
 */

const FORMULA_START = /^(?:[\t\r]|[ "]*[=+\-@])/;
const FORMULA_AFTER_SEPARATOR = /([;,\t\r\n])(?=[\t\r]|[ "]*[=+\-@])/g;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A cell's text with every formula start neutralized (see above); a plain number unchanged. */
export function neutralizeFormulas(value: string): string {
  if (PLAIN_NUMBER.test(value)) return value;
  const inner = value.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  return FORMULA_START.test(inner) ? `'${inner}` : inner;
}

/** One cell: null is empty; formula starts neutralized; quoted when it must be. */
export function csvCell(value: string | null): string {
  if (value === null || value === '') return '';
  const text = neutralizeFormulas(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line of cells, with its CRLF. */
export function csvLine(cells: readonly (string | null)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
