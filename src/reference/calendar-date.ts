/**
 * Calendar dates written YYYY-MM-DD (ISO 8601 calendar dates, as the spec's `dob`), compared as
 * strings: for this fixed-width form, string order is date order. Which texts are calendar dates:
 * shared/calendar-date.ts.
 */
import { isCalendarDate } from '../shared/calendar-date.js';

/**
 * The latest date that is already "today" somewhere on Earth (the UTC+14 time zone). A date after it
 * is in the future for everyone; a date up to it is not, so a birth registered late in the evening
 * in Guam or early in the morning in Hawaii is never refused because the server runs on UTC.
 */
export function latestToday(now: Date): string {
  return new Date(now.getTime() + 14 * 60 * 60 * 1000).toISOString().slice(0, 10);
}

/** True when the calendar date has not yet begun anywhere on Earth at `now`. */
export const isFutureDate = (date: string, now: Date): boolean => date > latestToday(now);

/** The earliest date of birth accepted: no one alive was born before it, so an earlier one is a typo. */
export const EARLIEST_DOB = '1900-01-01';

/**
 * What is wrong with a date of birth, or undefined when it is acceptable: a real calendar date
 * written YYYY-MM-DD, not in the future (see latestToday) and not before EARLIEST_DOB.
 */
export function dobProblem(dob: string, now: Date): string | undefined {
  if (!isCalendarDate(dob)) return 'must be a real calendar date written YYYY-MM-DD';
  if (isFutureDate(dob, now)) return 'must not be in the future';
  if (dob < EARLIEST_DOB) return `must not be before ${EARLIEST_DOB}`;
  return undefined;
}
