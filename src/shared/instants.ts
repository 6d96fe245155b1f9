import { fieldError } from '../errors.js';

/** What every stored timestamp looks like: UTC with milliseconds, years 0000 to 9999. */
const STORED_FORM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A client's date-time (its form checked by the schema's `date-time`) as timestamps are stored, so
 * that strings compare as instants. Refused naming `field` (400, never a 500 of `toISOString`): a
 * time the calendar lacks, such as the leap second 23:59:60 that the format allows and `Date`
 * cannot read, and an instant outside years 0000 to 9999 (an offset can push 9999-12-31 past it),
 * whose text would not compare as its instant.
 */
export function storedInstant(value: string, field: string): string {
  const time = Date.parse(value);
  const stored = Number.isNaN(time) ? '' : new Date(time).toISOString();
  if (!STORED_FORM.test(stored)) throw fieldError(field, 'must be an ISO 8601 date-time');
  return stored;
}

/** `storedInstant` of a filter that may be left out. */
export const optionalInstant = (value: string | undefined, field: string): string | undefined =>
  value === undefined ? undefined : storedInstant(value, field);

/**
 * The instant one millisecond after `at` (stored form): the next step of one change, so that it
 * sorts after the step before it in the status history and the outbox, which are read in
 * (created_at, id) order.
 */
export const oneMsLater = (at: string): string => new Date(Date.parse(at) + 1).toISOString();
