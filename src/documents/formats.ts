/**
 * How the documents write dates, times and money. Pure; nothing reads a clock.
 *
 * Dates are written with the month's name (`Mar 5, 2026`): `03/05/2026` reads as 3 May outside the
 * United States, and a beyond-use date read wrong is a safety problem.
 */
import { isCalendarDate } from '../shared/calendar-date.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** A calendar date (YYYY-MM-DD) as `Mar 5, 2026`. */
export function formatDate(date: string): string {
  if (!isCalendarDate(date)) throw new RangeError(`not a calendar date: ${date}`);
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return `${MONTHS[month - 1] ?? ''} ${day}, ${year}`;
}

/** A wall-clock time (HH:MM, 24 hours) as `5:30 PM`. */
export function formatTime(time: string): string {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(time);
  if (!match) throw new RangeError(`not a time as HH:MM: ${time}`);
  const hours = Number(match[1]);
  return `${hours % 12 === 0 ? 12 : hours % 12}:${match[2] ?? '00'} ${hours < 12 ? 'AM' : 'PM'}`;
}

const instantFormats = new Map<string, Intl.DateTimeFormat>();

/** An instant (ISO 8601) in a time zone (IANA) as `Mar 5, 2026, 2:05 PM EST`. */
export function formatInstant(instant: string, timeZone: string): string {
  const time = Date.parse(instant);
  if (Number.isNaN(time)) throw new RangeError(`not an instant: ${instant}`);
  let format = instantFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    });
    instantFormats.set(timeZone, format);
  }
  // ICU writes a narrow no-break space before AM/PM, which the standard fonts lack.
  return format.format(time).replace(/\u202f/g, ' ');
}

function wholeCents(cents: number): void {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a whole number of cents: ${cents}`);
}

/** Integer cents as a decimal number of dollars, digits only (-1234 → `-12.34`): exact, no floating point. */
export function centsToDecimal(cents: number): string {
  wholeCents(cents);
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${cents < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Integer cents as US dollars (123456 → `$1,234.56`, -500 → `-$5.00`): exact, no floating point. */
export function formatUsd(cents: number): string {
  const decimal = centsToDecimal(cents);
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = '00'] = (negative ? decimal.slice(1) : decimal).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}$${grouped}.${fraction}`;
}

/** The sum of integer cents, refused when it leaves the integers a double holds exactly. */
export function sumCents(amounts: readonly number[]): number {
  let total = 0;
  for (const amount of amounts) {
    wholeCents(amount);
    total += amount;
    wholeCents(total);
  }
  return total;
}
