/**
 * Receivers that push back: which answers mean "slow down", and how long to hold an endpoint's
 * attempts then. Pure: no I/O, no clock of its own.
 * @see https://www.standardwebhooks.com/ (429 and 503 with Retry-After mean "slow down")
 * @see RFC 9110 §10.2.3 (Retry-After: delay-seconds or an HTTP-date)
 */

/** The longest a receiver can hold its endpoint with one answer. */
export const MAX_PAUSE_MS = 60 * 60 * 1000;
/** A 429 without a usable Retry-After holds the endpoint this long (Svix waits at least a minute). */
export const DEFAULT_429_PAUSE_MS = 60 * 1000;

/**
 * A Retry-After header's delay in milliseconds from `now`, or null when it is absent or not one of
 * the two forms RFC 9110 allows (garbage, negative, fractional): then it is treated as absent. A
 * date in the past is a delay of 0. Capped at MAX_PAUSE_MS, so a date years away holds an hour.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,12}$/.test(text)) return Math.min(Number(text) * 1000, MAX_PAUSE_MS);
  // An HTTP-date names its weekday and its zone (GMT); Date.parse alone would take "1" or "2030".
  if (!/^[A-Za-z]{3},\s+\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}:\d{2}\s+GMT$/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_PAUSE_MS);
}

/**
 * How long an answer asks us to hold the endpoint, or null when it is not a throttle: a 429 (with
 * its Retry-After, or at least DEFAULT_429_PAUSE_MS without one), or a 503 with a usable Retry-After
 * (a bare 503 is an ordinary failure). Never more than MAX_PAUSE_MS.
 */
export function throttlePauseMs(statusCode: number | null, retryAfter: string | null, now: Date): number | null {
  if (statusCode !== 429 && statusCode !== 503) return null;
  const delay = parseRetryAfter(retryAfter, now);
  if (statusCode === 503) return delay;
  return delay ?? DEFAULT_429_PAUSE_MS;
}
