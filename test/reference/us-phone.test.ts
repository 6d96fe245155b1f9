import { describe, expect, it } from 'vitest';
import { isUsPhoneNumber, normalizeUsPhone } from '../../src/reference/us-phone.js';

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
    // The original system's published examples (issue 22): area code 123, exchange 123.
    '1234567890',
    '5551234567',
    '+1 123 456 7890',
  ])('when the value is %j, then it is a US phone number', (phone) => {
    expect(isUsPhoneNumber(phone)).toBe(true);
  });

  it.each([
    ['555-0100', 'seven digits'],
    ['123456789', 'nine digits'],
    ['555-555-01000', 'eleven digits not starting with 1'],
    ['112345678901', 'twelve digits'],
    ['+44 20 7946 0958', 'a UK number'],
    ['+2 555 555 0100', 'another country code'],
    ['555-555-0100 x12', 'an extension'],
    ['555-CALL-NOW', 'letters'],
    ['555555010O', 'a letter O for a zero'],
    [' 555-555-0100', 'a leading space'],
    ['555--555-0100', 'two separators'],
    ['', 'nothing'],
  ])('when the value is %j (%s), then it is refused', (phone) => {
    expect(isUsPhoneNumber(phone)).toBe(false);
  });

  it.each([
    ['1234567890', '123-456-7890'],
    ['5551234567', '555-123-4567'],
    ['(555) 555-0100', '555-555-0100'],
    ['555.555.0100', '555-555-0100'],
    ['+1 555 555 0100', '555-555-0100'],
    ['15555550100', '555-555-0100'],
    ['555-555-0100', '555-555-0100'],
  ])('when %j is stored, then it is stored as %j', (phone, stored) => {
    expect(normalizeUsPhone(phone)).toBe(stored);
  });
});
