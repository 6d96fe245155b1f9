/**
 * Text in an ASAP file. A file is printable ASCII cut by two characters its header declares: the
 * data element separator (the character after `TH`) and the segment terminator (TH09). A value
 * that held either would move every element after it, so:
 *
 * - free text (names, addresses, a pharmacy's name, the sig) is cleaned: accents are dropped
 *   (`José` → `Jose`), a separator, a control character or any other character outside printable
 *   ASCII becomes a space, and spaces are collapsed. A dispensing must be reported even when a
 *   name was typed with a stray `*`, and neither character means anything in a name;
 * - identifiers and codes (Rx numbers, NPI, DEA, NDC, dates, quantities) are refused instead: one
 *   that holds a separator is wrong data, and changing it would report another prescription.
 *
 * A refusal names the field (`records[0].rx_number`), never its value: messages may be logged, and
 * the values are PHI.
 */

export interface AsapSeparators {
  /** The data element separator, `*` by default. */
  element: string;
  /** The segment terminator, `~` by default; TH09 declares it. */
  segment: string;
}

export const DEFAULT_SEPARATORS: AsapSeparators = Object.freeze({ element: '*', segment: '~' });

/** A value the writer cannot put in a file; `field` is its path in the report. */
export class AsapContentError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}`);
    this.name = 'AsapContentError';
  }
}

const PRINTABLE_ASCII = /^[\x20-\x7e]$/;

/** What is wrong with a pair of separators, or null: one printable, non-alphanumeric character each, not a space, not the same. */
export function separatorsProblem(separators: AsapSeparators): string | null {
  for (const [name, value] of Object.entries(separators) as [string, string][]) {
    if (value.length !== 1 || !PRINTABLE_ASCII.test(value) || /[A-Za-z0-9 ]/.test(value)) {
      return `the ${name} separator must be one printable ASCII character that is not a letter, a digit or a space`;
    }
  }
  if (separators.element === separators.segment) return 'the element separator and the segment terminator must differ';
  return null;
}

/** Free text as it can be written: ASCII, no separator, no control character, single spaces. */
export function cleanFreeText(value: string, separators: AsapSeparators): string {
  const ascii = value.normalize('NFKD').replace(/\p{M}/gu, '');
  let cleaned = '';
  for (const char of ascii) {
    const unsafe = !PRINTABLE_ASCII.test(char) || char === separators.element || char === separators.segment;
    cleaned += unsafe ? ' ' : char;
  }
  return cleaned.replace(/ {2,}/g, ' ').trim();
}

/** A free-text element: cleaned; a required one left empty by cleaning is refused. */
export function freeText(field: string, value: string | undefined, separators: AsapSeparators, required = false): string {
  const cleaned = cleanFreeText(value ?? '', separators);
  if (required && cleaned === '') {
    throw new AsapContentError(field, 'is required and has no printable ASCII character once separators are removed');
  }
  return cleaned;
}

/** An identifier written as given (trimmed): printable ASCII without either separator, 1 to `maxLength` characters. */
export function identifier(field: string, value: string, separators: AsapSeparators, maxLength: number): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > maxLength) {
    throw new AsapContentError(field, `must be 1 to ${maxLength} characters`);
  }
  for (const char of trimmed) {
    if (!PRINTABLE_ASCII.test(char)) throw new AsapContentError(field, 'must be printable ASCII');
    if (char === separators.element || char === separators.segment) {
      throw new AsapContentError(
        field,
        `must not contain the file's separators (${separators.element} and ${separators.segment})`,
      );
    }
  }
  return trimmed;
}
