/**
 * A calendar date written `YYYY-MM-DD` (ISO 8601, as the spec's `dob`): the one check that a text
 * names a day of the calendar. `Date.parse` is no such check: it rolls 2030-02-30 over to March.
 * For this fixed-width form, string order is date order.
 */

const DATE_FORM = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a day of the calendar: `2028-02-29` yes; `2030-02-29`, `2030-02-30`, `2030-13-01` and `2030-1-08` no. */
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
