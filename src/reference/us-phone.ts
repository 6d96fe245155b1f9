/**
 * US (NANP) phone numbers as partners write them: ten digits, optionally preceded by `1` or `+1`,
 * the area code optionally in parentheses, groups separated by nothing, a space, a dot or a hyphen.
 * The area code and the exchange start with 2–9, as in every assigned NANP number.
 * Accepted: `555-555-0100`, `(555) 555-0100`, `555.555.0100`, `5555550100`, `+1 555 555 0100`, `1-555-555-0100`.
 * Refused: extensions, letters, other countries' numbers, area codes or exchanges starting with 0 or 1.
 */
export const US_PHONE_PATTERN = '^(?:\\+?1[ .-]?)?(?:\\([2-9][0-9]{2}\\)|[2-9][0-9]{2})[ .-]?[2-9][0-9]{2}[ .-]?[0-9]{4}$';

const US_PHONE = new RegExp(US_PHONE_PATTERN);

export const isUsPhoneNumber = (value: string): boolean => US_PHONE.test(value);

/** The message given for a value that is not a US phone number. */
export const US_PHONE_MESSAGE = 'must be a US phone number such as 555-555-0100, (555) 555-0100 or +1 555 555 0100';
