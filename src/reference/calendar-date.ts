/**
 * Calendar dates written YYYY-MM-DD (ISO 8601 calendar dates, as the spec's `dob`), compared as
 * strings: for this fixed-width form, string order is date order.
 */

const DATE_FORM = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a date that exists on the calendar: `2024-02-29` yes, `2023-02-29` and `2023-02-30` no. */
export function isCalendarDate(value: string): boolean {
  const match = DATE_FORM.exec(value);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

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
