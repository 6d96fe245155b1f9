import type { ServiceContext } from '../context.js';
import { isoNow } from '../clock.js';
import * as deliveries from './delivery.repository.js';
import { repairNextDue } from './queue.repository.js';
import { JITTER_RATIO } from './retry-schedule.js';

/**
 * Applies the configured retry schedule (WEBHOOK_RETRY_SCHEDULE) to the deliveries already waiting
 * for a retry, so that a changed schedule applies at their next attempt rather than after the delay
 * computed under the old one (a delivery told to wait 10 h under the old schedule waits 5 s under a
 * new one that says so). Each waiting delivery's next attempt becomes the current delay of its retry
 * number, counted from its last attempt, as `recordOutcome` would have set it; a delivery whose due
 * time already fits the current delay (with its jitter) keeps it, so running this with an unchanged
 * schedule moves nothing. Deliveries that made more attempts than the new schedule allows get its
 * last delay (the attempt they were promised); if it fails they fail. Deliveries waiting for their
 * first attempt are left as they are (that delay is counted from the event, normally 0), and so are
 * those already due (among them those an operator's retry or a recovery made due now): they are
 * attempted at once either way.
 *
 * Run by every delivery worker before its first look at the queue (a changed schedule takes effect
 * by restarting the processes). One UPDATE per retry number of the schedule (at most 50), each its
 * own statement: idempotent, so workers starting at once, or a crash half-way, do no harm.
 * Returns how many deliveries were moved.
 */
export async function applyRetryScheduleToWaiting(ctx: ServiceContext): Promise<number> {
  const schedule = ctx.config.webhookRetryScheduleMs;
  const now = isoNow(ctx.clock);
  let moved = 0;
  // schedule[n] is the delay after n failed attempts; schedule[0] (before the first) is not a retry.
  for (let attempts = 1; attempts <= Math.max(1, schedule.length - 1); attempts++) {
    const orMore = attempts >= schedule.length - 1;
    const delayMs = schedule[Math.min(attempts, schedule.length - 1)] ?? 0;
    moved += await deliveries.rescheduleWaiting(ctx.db, ctx.dialect, {
      attemptCount: attempts,
      orMore,
      delayMs,
      // The bounds of `withJitter`, widened by a millisecond for its rounding.
      lowMs: Math.floor(delayMs * (1 - JITTER_RATIO)) - 1,
      highMs: Math.ceil(delayMs * (1 + JITTER_RATIO)) + 1,
      now,
    });
  }
  return moved;
}

/**
 * What a delivery worker does before its first look at the queue: moves the waiting deliveries to the
 * current retry schedule, then sets every endpoint nobody owns to look for its earliest pending
 * delivery (so that what the schedule moved, or a row written by an older version, is found). Both
 * are idempotent: several workers starting at once are harmless.
 */
export async function prepareQueue(ctx: ServiceContext, log: Pick<Console, 'info'>): Promise<void> {
  const moved = await applyRetryScheduleToWaiting(ctx);
  if (moved > 0) log.info({ moved }, 'webhook worker: waiting deliveries moved to the current retry schedule');
  await repairNextDue(ctx.db, isoNow(ctx.clock));
}
