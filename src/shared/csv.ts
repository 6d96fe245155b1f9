/*
 * CSV as RFC 4180 writes it (lines end in CRLF; a cell holding a comma, a quote or a line break is
 * quoted, its quotes doubled), made safe to open in a spreadsheet (OWASP, "CSV Injection"): a cell
 * starting with `=`, `+`, `-`, `@`, a tab or a carriage return would be read as a formula, so it is
 * prefixed with `'`, which spreadsheets show as text. Pure: no I/O.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: null is empty; formula starts neutralized; quoted when it must be. */
export function csvCell(value: string | null): string {
  if (value === null || value === '') return '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line of cells, with its CRLF. */
export function csvLine(cells: readonly (string | null)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
