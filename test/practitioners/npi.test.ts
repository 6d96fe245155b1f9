import { describe, expect, it } from 'vitest';
import { isValidNpi, npiCheckDigit } from '../../src/practitioners/npi.js';

describe('NPI check digit', () => {
  it.each(['1234567893', '1245319599', '1679576722', '1003000126'])(
    'when %s has a valid check digit, then it is a valid NPI',
    (npi) => {
      expect(isValidNpi(npi)).toBe(true);
    },
  );

  it.each([
    ['1234567890', 'a wrong check digit'],
    ['1234567894', 'a check digit off by one'],
    ['2134567893', 'two digits swapped'],
    ['123456789', 'nine digits'],
    ['12345678933', 'eleven digits'],
    ['123456789a', 'a letter'],
    ['1234-56789', 'a hyphen'],
    [' 1234567893', 'a leading space'],
    ['', 'nothing'],
  ])('when the value is %j (%s), then it is not a valid NPI', (npi) => {
    expect(isValidNpi(npi)).toBe(false);
  });

  it('when nine digits are given, then npiCheckDigit returns the digit that completes a valid NPI', () => {
    expect(npiCheckDigit('123456789')).toBe(3);
    for (const nine of ['100300012', '167957672', '000000000', '999999999']) {
      const npi = `${nine}${npiCheckDigit(nine)}`;
      expect(isValidNpi(npi)).toBe(true);
    }
  });

  it('when a valid NPI has any single digit changed, then it is refused (Luhn catches single-digit errors)', () => {
    const valid = '1234567893';
    for (let i = 0; i < valid.length; i++) {
      for (let d = 0; d <= 9; d++) {
        const digit = String(d);
        if (digit === valid[i]) continue;
        expect(isValidNpi(valid.slice(0, i) + digit + valid.slice(i + 1))).toBe(false);
      }
    }
  });

  it('when npiCheckDigit is given something other than nine digits, then it throws', () => {
    expect(() => npiCheckDigit('12345678')).toThrow(RangeError);
    expect(() => npiCheckDigit('12345678a')).toThrow(RangeError);
  });
});
