/**
 * The retry schedule of webhook deliveries: configuration, not code (WEBHOOK_RETRY_SCHEDULE).
 * Pure: no I/O, no clock.
 * @see https://docs.svix.com/retries (the schedule we follow)
 */

/** Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts). */
export const DEFAULT_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,10h';

/** Each delay is spread by up to ±10 %, so that retries of many deliveries do not arrive in a burst. */
export const JITTER_RATIO = 0.1;

/** An endpoint whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses `0,5s,5m,30m,2h` into delays in milliseconds. The n-th delay is the wait before attempt
 * n+1 (the first counted from the event, the others from the previous failed attempt); the list's
 * length is the number of attempts. Returns the problem as a string when the text is invalid.
 */
export function parseRetrySchedule(text: string): number[] | string {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.length > 50) return 'must list between 1 and 50 delays';
  const delays: number[] = [];
  for (const part of parts) {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(part);
    if (!match?.[1]) return `has an invalid delay "${part}" (use e.g. 0, 500ms, 5s, 5m, 2h, 1d)`;
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the pattern allows only the units of UNIT_MS
    const ms = Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a key of UNIT_MS
    if (ms > 7 * UNIT_MS.d!) return `has a delay over 7 days ("${part}")`;
    delays.push(ms);
  }
  return delays;
}

/** Spreads a delay by up to ±JITTER_RATIO; `random` is in [0, 1). */
export function withJitter(delayMs: number, random: number): number {
  return Math.max(0, Math.round(delayMs * (1 + (random * 2 - 1) * JITTER_RATIO)));
}

/**
 * When the attempt after `attemptsMade` failed attempts is due, or null when the schedule is
 * exhausted and the delivery has failed.
 */
export function nextAttemptAt(schedule: readonly number[], attemptsMade: number, failedAt: Date, random: number): Date | null {
  const delay = schedule[attemptsMade];
  if (delay === undefined) return null;
  return new Date(failedAt.getTime() + withJitter(delay, random));
}
