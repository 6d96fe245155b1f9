/**
 * The pharmacy's working time, for the order queue's age column and its date filters: Monday to
 * Friday, 09:00 to 17:00 on the wall clock of the pharmacy's time zone (PHARMACY_TIME_ZONE). Public
 * holidays are not known and count as working days. Pure: no clock, no I/O.
 *
 * Arithmetic runs on "wall time": an instant's date and time of day as the zone's clock shows them,
 * written as if they were UTC. Daylight-saving changes happen at night, outside 09:00-17:00, so an
 * hour of wall time inside the working day is an hour of real time.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The working day, as times of day on the wall clock. */
export const OPENS_AT_MS = 9 * HOUR_MS;
export const CLOSES_AT_MS = 17 * HOUR_MS;
const WORKING_DAY_MS = CLOSES_AT_MS - OPENS_AT_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `timeZone` is an IANA zone this runtime knows (`America/New_York`, `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The instant `epochMs` as the zone's wall clock shows it, in milliseconds as if it were UTC. */
export function wallTime(epochMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second, ((epochMs % 1000) + 1000) % 1000);
}

/** Weekdays (Monday to Friday) among the days numbered 0 (1970-01-01, a Thursday) to n - 1. */
function weekdaysBefore(n: number): number {
  const weeks = Math.floor(n / 7);
  let count = weeks * 5;
  for (let day = weeks * 7; day < n; day++) if (isWeekday(day)) count++;
  return count;
}

/** Day 0 (1970-01-01) was a Thursday: day % 7 is 0 for Thursday, 2 for Saturday, 3 for Sunday. */
function isWeekday(day: number): boolean {
  const fromThursday = ((day % 7) + 7) % 7;
  return fromThursday !== 2 && fromThursday !== 3;
}

/** The working time of one wall-clock day between two times of day. */
function workingWithin(day: number, fromMs: number, toMs: number): number {
  if (!isWeekday(day)) return 0;
  return Math.max(0, Math.min(toMs, CLOSES_AT_MS) - Math.max(fromMs, OPENS_AT_MS));
}

/**
 * The working time between two instants, in milliseconds: Monday to Friday, 09:00 to 17:00 in
 * `timeZone`. 0 when `end` is not after `start`.
 */
export function businessMsBetween(start: Date, end: Date, timeZone: string): number {
  if (end.getTime() <= start.getTime()) return 0;
  const from = wallTime(start.getTime(), timeZone);
  const to = wallTime(end.getTime(), timeZone);
  const firstDay = Math.floor(from / DAY_MS);
  const lastDay = Math.floor(to / DAY_MS);
  const fromOfDay = from - firstDay * DAY_MS;
  const toOfDay = to - lastDay * DAY_MS;
  if (firstDay === lastDay) return workingWithin(firstDay, fromOfDay, toOfDay);
  const whole = (weekdaysBefore(lastDay) - weekdaysBefore(firstDay + 1)) * WORKING_DAY_MS;
  return workingWithin(firstDay, fromOfDay, DAY_MS) + whole + workingWithin(lastDay, 0, toOfDay);
}

/** Working hours between two instants, rounded down to a tenth of an hour (the queue's age column). */
export function businessHoursBetween(start: Date, end: Date, timeZone: string): number {
  return Math.floor(businessMsBetween(start, end, timeZone) / (HOUR_MS / 10)) / 10;
}

/**
 * The instant a calendar day (`YYYY-MM-DD`) starts at in `timeZone` (its first instant on the wall
 * clock: midnight, or the end of a gap when the clocks skip midnight).
 */
export function startOfLocalDay(date: string, timeZone: string): Date {
  const [year = 1970, month = 1, day = 1] = date.split('-').map(Number);
  const midnight = Date.UTC(year, month - 1, day);
  // The zone's offset near that midnight; asked again at the guess, in case it changed between.
  let guess = midnight - (wallTime(midnight, timeZone) - midnight);
  guess = midnight - (wallTime(guess, timeZone) - guess);
  // Clocks skipping midnight (a spring-forward at 00:00): the day starts when they land.
  while (wallTime(guess, timeZone) < midnight) guess += 15 * 60_000;
  return new Date(guess);
}

/** The calendar day after `date` (`YYYY-MM-DD`). */
export function nextDate(date: string): string {
  const [year = 1970, month = 1, day = 1] = date.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
}
