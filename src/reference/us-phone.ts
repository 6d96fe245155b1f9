/**
 * US phone numbers as partners write them: ten digits, optionally preceded by `1` or `+1`, the area
 * code optionally in parentheses, groups separated by nothing, a space, a dot or a hyphen.
 * Accepted: `555-555-0100`, `(555) 555-0100`, `555.555.0100`, `5555550100`, `+1 555 555 0100`, `1-555-555-0100`,
 * and the original system's own examples, `1234567890` and `5551234567` (issue 22: its published
 * OpenAPI shows them, so partners moving from it send them; the NANP rule that an area code and an
 * exchange start with 2–9 is not asked of a partner's data).
 * Refused: what is not a phone number at all: letters, fewer or more digits, extensions, other
 * countries' numbers, surrounding spaces.
 */
export const US_PHONE_PATTERN = '^(?:\\+?1[ .-]?)?(?:\\([0-9]{3}\\)|[0-9]{3})[ .-]?[0-9]{3}[ .-]?[0-9]{4}$';

const US_PHONE = new RegExp(US_PHONE_PATTERN);

export const isUsPhoneNumber = (value: string): boolean => US_PHONE.test(value);

/**
 * The one form a US phone number is stored in, whatever layout it was sent in: `555-555-0100` (the
 * form of every example of this API), the country code dropped. `value` must be a US phone number.
 */
export function normalizeUsPhone(value: string): string {
  const digits = value.replace(/\D/g, '');
  const national = digits.length === 11 ? digits.slice(1) : digits;
  return `${national.slice(0, 3)}-${national.slice(3, 6)}-${national.slice(6)}`;
}

/** The message given for a value that is not a US phone number. */
export const US_PHONE_MESSAGE = 'must be a US phone number such as 555-555-0100, (555) 555-0100, 5555550100 or +1 555 555 0100';
