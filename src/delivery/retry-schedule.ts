/**
 * The retry schedule of webhook deliveries: configuration, not code (WEBHOOK_RETRY_SCHEDULE, parsed
 * by config.ts into `webhookRetryScheduleMs`). The n-th delay is the wait before attempt n+1 (the
 * first counted from the event, the others from the previous failed attempt); the list's length is
 * the number of attempts. Pure: no I/O, no clock.
 * @see https://docs.svix.com/retries (the schedule we follow)
 */

/** Each delay is spread by up to ±10 %, so that retries of many deliveries do not arrive in a burst. */
export const JITTER_RATIO = 0.1;

/** An endpoint whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

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
