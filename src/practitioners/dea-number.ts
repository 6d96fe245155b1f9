/**
 * DEA registration numbers (US Drug Enforcement Administration): two letters and seven digits.
 *
 * - The first letter is the registrant type. A, B, F and G are practitioners, hospitals and clinics,
 *   pharmacies and teaching institutions (A was issued before October 1985, then B, F and G); M is
 *   a mid-level practitioner (nurse practitioner, physician assistant...); P, R, S, T and U are
 *   manufacturers, distributors, researchers, analytical labs, importers, exporters, reverse
 *   distributors and narcotic treatment programs; X was a buprenorphine (DATA-waived) prescriber's
 *   number, no longer issued since the MAT Act of 2023 ended the waiver. C, D, E, H, J, K and L are
 *   DEA's business activity codes, which published lists of first letters also show: they are
 *   accepted so that no real number is refused. Any other letter is not a registrant type.
 * - The second letter is the initial of the registrant's last name (or business name). It is not
 *   compared with the practitioner's name: names change, registrations do not.
 * - The seventh digit is a check digit: (d1 + d3 + d5) + 2 × (d2 + d4 + d6), whose last digit is d7.
 *
 * A registrant with a business address may hold `F9…`: a digit second, not the two letters the API
 * accepts (issue 30, item 8), and not a practitioner's own number.
 * @see https://www.deadiversion.usdoj.gov/ (DEA Diversion Control Division, registration)
 */

/** The registrant types a DEA number may start with (see above). */
export const DEA_REGISTRANT_TYPES: readonly string[] = Object.freeze([
  'A',
  'B',
  'C',
  'D',
  'E',
  'F',
  'G',
  'H',
  'J',
  'K',
  'L',
  'M',
  'P',
  'R',
  'S',
  'T',
  'U',
  'X',
]);

const SHAPE = /^[A-Z]{2}[0-9]{7}$/;

/** The check digit that completes six DEA digits (`123456` → 3: (1+3+5) + 2×(2+4+6) = 33). */
export function deaCheckDigit(sixDigits: string): number {
  if (!/^[0-9]{6}$/.test(sixDigits)) throw new RangeError('a DEA check digit needs exactly six digits');
  const digit = (i: number): number => sixDigits.charCodeAt(i) - 48;
  const odd = digit(0) + digit(2) + digit(4);
  const even = digit(1) + digit(3) + digit(5);
  return (odd + 2 * even) % 10;
}

/** A DEA number as stored: surrounding spaces removed, upper case (`ab1234563` → `AB1234563`). */
export function normalizeDeaNumber(value: string): string {
  return value.trim().toUpperCase();
}

/**
 * What is wrong with a DEA number (read in any letter case), as the end of a sentence naming the
 * field, or null when it is well formed, of a known registrant type, and its check digit is right.
 */
export function deaNumberProblem(value: string): string | null {
  const dea = normalizeDeaNumber(value);
  if (!SHAPE.test(dea)) return 'must be two letters and seven digits, e.g. AB1234563';
  const type = dea.charAt(0);
  if (!DEA_REGISTRANT_TYPES.includes(type)) {
    return `starts with ${type}, which is not a DEA registrant type (${DEA_REGISTRANT_TYPES.join(', ')})`;
  }
  const expected = deaCheckDigit(dea.slice(2, 8));
  if (Number(dea.charAt(8)) !== expected) {
    return 'has a wrong check digit: (d1+d3+d5) + 2\u00d7(d2+d4+d6) must end in the last digit';
  }
  return null;
}

/** True for a valid DEA number, in any letter case. */
export function isValidDeaNumber(value: string): boolean {
  return deaNumberProblem(value) === null;
}
