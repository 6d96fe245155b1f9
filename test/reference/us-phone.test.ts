import { describe, expect, it } from 'vitest';
import { isUsPhoneNumber } from '../../src/reference/us-phone.js';

describe('US phone numbers', () => {
  it.each([
    '555-555-0100',
    '(555) 555-0100',
    '(555)555-0100',
    '555.555.0100',
    '555 555 0100',
    '5555550100',
    '+1 555 555 0100',
    '+15555550100',
    '1-555-555-0100',
    '+1 (212) 555-0100',
  ])('when the value is %j, then it is a US phone number', (phone) => {
    expect(isUsPhoneNumber(phone)).toBe(true);
  });

  it.each([
    ['555-0100', 'seven digits'],
    ['555-555-01000', 'eleven digits'],
    ['055-555-0100', 'an area code starting with 0'],
    ['155-555-0100', 'an area code starting with 1'],
    ['555-055-0100', 'an exchange starting with 0'],
    ['+44 20 7946 0958', 'a UK number'],
    ['555-555-0100 x12', 'an extension'],
    ['555-CALL-NOW', 'letters'],
    [' 555-555-0100', 'a leading space'],
    ['', 'nothing'],
  ])('when the value is %j (%s), then it is refused', (phone) => {
    expect(isUsPhoneNumber(phone)).toBe(false);
  });
});
