import { describe, expect, it } from 'vitest';
import {
  DEA_REGISTRANT_TYPES,
  deaCheckDigit,
  deaNumberProblem,
  isValidDeaNumber,
  normalizeDeaNumber,
} from '../../src/practitioners/dea-number.js';

describe('DEA number check digit', () => {
  it.each(['AB1234563', 'BJ1424326', 'FL9876547', 'MH0000000', 'XA1111119'])(
    'when %s has a valid check digit and registrant type, then it is a valid DEA number',
    (dea) => {
      expect(deaNumberProblem(dea)).toBeNull();
      expect(isValidDeaNumber(dea)).toBe(true);
    },
  );

  it('when six digits are given, then deaCheckDigit is (d1+d3+d5) + 2×(d2+d4+d6) modulo 10', () => {
    expect(deaCheckDigit('123456')).toBe(3); // 9 + 2×12 = 33
    expect(deaCheckDigit('142432')).toBe(6); // 6 + 2×10 = 26
    expect(deaCheckDigit('000000')).toBe(0);
    expect(deaCheckDigit('999999')).toBe(1); // 27 + 54 = 81
    expect(() => deaCheckDigit('12345')).toThrow(RangeError);
  });

  it.each([
    ['AB1234560', 'a wrong check digit'],
    ['AB1234564', 'a check digit off by one'],
    ['AB2134563', 'two digits swapped'],
  ])('when the value is %s (%s), then the problem names the check digit', (dea) => {
    expect(deaNumberProblem(dea)).toContain('check digit');
    expect(isValidDeaNumber(dea)).toBe(false);
  });

  it.each(['IB1234563', 'NB1234563', 'OB1234563', 'QB1234563', 'VB1234563', 'WB1234563', 'YB1234563', 'ZB1234563'])(
    'when %s starts with a letter that is no registrant type, then the problem names the letter',
    (dea) => {
      expect(deaNumberProblem(dea)).toContain(`starts with ${dea.charAt(0)}`);
    },
  );

  it('when every listed registrant type starts an otherwise valid number, then it is valid', () => {
    for (const type of DEA_REGISTRANT_TYPES) expect(isValidDeaNumber(`${type}B1234563`)).toBe(true);
  });

  it.each([
    ['AB123456', 'eight characters'],
    ['AB12345633', 'ten characters'],
    ['A91234563', 'a digit second (business-address numbers are not a prescriber\u2019s)'],
    ['121234563', 'no letters'],
    ['AB12345X3', 'a letter among the digits'],
    ['AB-1234563', 'a hyphen'],
    ['', 'nothing'],
  ])('when the value is %j (%s), then the problem is its shape', (dea) => {
    expect(deaNumberProblem(dea)).toBe('must be two letters and seven digits, e.g. AB1234563');
  });

  it('when the letters are lower case or the value has surrounding spaces, then it is read as upper case and valid', () => {
    expect(isValidDeaNumber('ab1234563')).toBe(true);
    expect(isValidDeaNumber('Ab1234563')).toBe(true);
    expect(isValidDeaNumber(' AB1234563 ')).toBe(true);
    expect(normalizeDeaNumber(' ab1234563 ')).toBe('AB1234563');
    expect(deaNumberProblem('zb1234563')).toContain('starts with Z');
  });
});
