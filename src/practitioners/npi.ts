/**
 * National Provider Identifier (US, CMS): ten digits whose last is a Luhn check digit computed over
 * the nine others prefixed by `80840` (the ISO 7812 issuer prefix of US health identifiers).
 * @see https://www.cms.gov/Regulations-and-Guidance/Administrative-Simplification/NationalProvIdentStand/Downloads/NPIcheckdigit.pdf
 */

const TEN_DIGITS = /^[0-9]{10}$/;

/** True for ten digits with a valid check digit (`1234567893` yes, `1234567890` no). */
export function isValidNpi(value: string): boolean {
  if (!TEN_DIGITS.test(value)) return false;
  return luhnValid(`80840${value}`);
}

/** The check digit that completes nine NPI digits (`123456789` → 3). */
export function npiCheckDigit(firstNine: string): number {
  if (!/^[0-9]{9}$/.test(firstNine)) throw new RangeError('an NPI check digit needs exactly nine digits');
  const sum = luhnSum(`80840${firstNine}`, true);
  return (10 - (sum % 10)) % 10;
}

/** Luhn (mod 10) validation of a digit string whose last digit is the check digit. */
function luhnValid(digits: string): boolean {
  return luhnSum(digits, false) % 10 === 0;
}

/**
 * The Luhn sum, doubling every second digit from the right. `doubleRightmost` is true when the
 * check digit is not part of `digits` yet (so the rightmost given digit is the first one doubled).
 */
function luhnSum(digits: string, doubleRightmost: boolean): number {
  let sum = 0;
  let double = doubleRightmost;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum;
}
