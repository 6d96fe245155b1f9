import { describe, expect, it } from 'vitest';
import { asapDate, decimalQuantity, ncpdpId, ndc11, phoneNumber, wholeNumber, zipCode } from '../../src/pdmp/asap-fields.js';

describe('ASAP element formats', () => {
  it.each([
    ['00591322379', '00591322379'],
    ['0591-3223-79', '00591322379'],
    ['51927-078-00', '51927007800'],
    ['51927-1078-0', '51927107800'],
    ['51927-1078-00', '51927107800'],
  ])('when the NDC %s is written, then it is the eleven digits %s', (ndc, written) => {
    expect(ndc11('ndc', ndc)).toBe(written);
  });

  it.each(['0591322379', '591-3223-79', 'ABCDE-1234-56', ''])(
    'when the NDC %j cannot be read as eleven digits, then it is refused',
    (ndc) => {
      expect(() => ndc11('product.ndc', ndc)).toThrow('product.ndc must be an NDC');
    },
  );

  it.each([
    [10, '10'],
    [2.5, '2.5'],
    [0.125, '0.125'],
  ])('when the quantity %d is written, then it reads %s', (quantity, written) => {
    expect(decimalQuantity('quantity', quantity)).toBe(written);
  });

  it.each([0, -1, 0.0001, 1e-7, Number.NaN, 1e12])('when the quantity is %d, then it is refused', (quantity) => {
    expect(() => decimalQuantity('quantity', quantity)).toThrow('quantity must be a positive number');
  });

  it('when dates, phones, ZIP codes and counts are written, then they take ASAP forms', () => {
    expect(asapDate('d', '2026-03-02')).toBe('20260302');
    expect(() => asapDate('d', '2026-02-30')).toThrow('d must be a calendar date');
    expect(phoneNumber('p', '+1 (512) 555-0100')).toBe('5125550100');
    expect(() => phoneNumber('p', '555-0100')).toThrow('p must be a US phone number');
    expect(zipCode('z', '78701-1234')).toBe('787011234');
    expect(() => zipCode('z', '7870')).toThrow('z must be a ZIP code');
    expect(ncpdpId('c', ' 4512345 ')).toBe('4512345');
    expect(() => ncpdpId('c', '451234')).toThrow('c must be an NCPDP provider id of seven digits');
    expect(wholeNumber('n', 5, 0, 99)).toBe('5');
    expect(() => wholeNumber('n', 100, 0, 99)).toThrow('n must be a whole number from 0 to 99');
    expect(() => wholeNumber('n', 1.5, 0, 99)).toThrow('n must be a whole number');
  });
});
