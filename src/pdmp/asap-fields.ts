import { deaNumberProblem, normalizeDeaNumber } from '../practitioners/dea-number.js';
import { isValidNpi } from '../practitioners/npi.js';
import { isUsStateCode } from '../reference/us-states.js';
import { isCalendarDate } from '../shared/calendar-date.js';
import { AsapContentError } from './asap-text.js';

/*
 * The formats of ASAP's coded and numeric elements. Each takes the field's path for its refusal and
 * returns the element as written; none echoes the value (asap-text.ts says why).
 */

/** A date (`YYYY-MM-DD`) as ASAP writes it, `CCYYMMDD`. */
export function asapDate(field: string, value: string): string {
  if (!isCalendarDate(value)) throw new AsapContentError(field, 'must be a calendar date, YYYY-MM-DD');
  return value.replaceAll('-', '');
}

/** A whole number from `min` to `max`. */
export function wholeNumber(field: string, value: number, min: number, max: number): string {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new AsapContentError(field, `must be a whole number from ${min} to ${max}`);
  }
  return String(value);
}

/**
 * A quantity in metric decimal form (`2.5`, `30`): positive, at most three decimal places and eleven
 * characters, never in exponent form.
 */
export function decimalQuantity(field: string, value: number): string {
  const written = String(value);
  if (!Number.isFinite(value) || value <= 0 || !/^\d+(\.\d{1,3})?$/.test(written) || written.length > 11) {
    throw new AsapContentError(field, 'must be a positive number of at most 11 characters and 3 decimal places');
  }
  return written;
}

/** A National Provider Identifier: ten digits with a valid check digit. */
export function npi(field: string, value: string): string {
  const trimmed = value.trim();
  if (!isValidNpi(trimmed)) throw new AsapContentError(field, 'must be an NPI: ten digits with a valid check digit');
  return trimmed;
}

/** An NCPDP (NABP) provider id: seven digits. */
export function ncpdpId(field: string, value: string): string {
  if (!/^\d{7}$/.test(value.trim())) throw new AsapContentError(field, 'must be an NCPDP provider id of seven digits');
  return value.trim();
}

/** A DEA registration number, upper case, with a valid check digit (practitioners/dea-number.ts). */
export function deaNumber(field: string, value: string): string {
  const problem = deaNumberProblem(value);
  if (problem !== null) throw new AsapContentError(field, problem);
  return normalizeDeaNumber(value);
}

/** A US phone number as ten digits: punctuation removed, and a leading country code 1. */
export function phoneNumber(field: string, value: string): string {
  const digits = value.replace(/[\s().+-]/g, '');
  const national = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
  if (!/^\d{10}$/.test(national)) throw new AsapContentError(field, 'must be a US phone number of ten digits');
  return national;
}

/** A ZIP code as five or nine digits, without the hyphen. */
export function zipCode(field: string, value: string): string {
  if (!/^\d{5}(-?\d{4})?$/.test(value.trim())) throw new AsapContentError(field, 'must be a ZIP code, 12345 or 12345-6789');
  return value.trim().replace('-', '');
}

/** A US state or territory, two upper-case letters. */
export function stateCode(field: string, value: string): string {
  if (!isUsStateCode(value)) throw new AsapContentError(field, 'must be a US state code of two upper-case letters');
  return value;
}

/**
 * An NDC as eleven digits without punctuation. A hyphenated ten-digit NDC is padded where its
 * segment is short (4-4-2 → 0xxxx-xxxx-xx, 5-3-2 → xxxxx-0xxx-xx, 5-4-1 → xxxxx-xxxx-0x); ten
 * digits without hyphens are refused, since which segment to pad cannot be known.
 */
export function ndc11(field: string, value: string): string {
  const trimmed = value.trim();
  if (/^\d{11}$/.test(trimmed)) return trimmed;
  const parts = /^(\d{4,5})-(\d{3,4})-(\d{1,2})$/.exec(trimmed);
  const [labeler = '', product = '', pack = ''] = parts?.slice(1) ?? [];
  if (parts && labeler.length + product.length + pack.length === 10) {
    return labeler.padStart(5, '0') + product.padStart(4, '0') + pack.padStart(2, '0');
  }
  if (parts && `${labeler}${product}${pack}`.length === 11) return `${labeler}${product}${pack}`;
  throw new AsapContentError(field, 'must be an NDC: eleven digits, or ten digits hyphenated 4-4-2, 5-3-2 or 5-4-1');
}
