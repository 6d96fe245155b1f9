import type { AppContext } from '../context.js';
import { setIntervalScheduler, type IntervalScheduler } from '../shared/interval-scheduler.js';
import { deleteDispatchedBefore } from './event-log.repository.js';

/** How often each server purges the event log's expired events. */
export const EVENT_LOG_PURGE_INTERVAL_MS = 10 * 60 * 1000;
const PURGE_BATCH = 5_000;
const PURGE_MAX_BATCHES = 20;

/**
 * Deletes the outbox events older than EVENT_RETENTION_DAYS that were already fanned out, in bounded
 * batches; returns how many. An event dispatched before the cutoff was created before it too, so
 * the range is one of the undispatched index's (dispatched_at, created_at); an event not yet fanned
 * out is kept for the fan-out. Every instance may run it: their deletes of the same rows are harmless.
 */
export async function purgeEventLog(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config'>,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? PURGE_BATCH;
  const maxBatches = options.maxBatches ?? PURGE_MAX_BATCHES;
  const cutoff = new Date(ctx.clock().getTime() - ctx.config.eventRetentionDays * 86_400_000).toISOString();
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const count = await deleteDispatchedBefore(ctx.db, cutoff, batchSize);
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}

/** Starts the periodic purge of the event log (as the request log's: request-log-purge.ts). Returns its stop function. */
export function startEventLogPurge(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'logger'>,
  options: { scheduler?: IntervalScheduler; onPass?: (deleted: number) => void } = {},
): () => Promise<void> {
  const schedule = options.scheduler ?? setIntervalScheduler;
  let running: Promise<unknown> | null = null;
  const cancel = schedule(EVENT_LOG_PURGE_INTERVAL_MS, () => {
    if (running) return;
    running = purgeEventLog(ctx)
      .then((deleted) => options.onPass?.(deleted))
      .catch((error: unknown) => ctx.logger?.error({ err: error }, 'event log purge failed'))
      .finally(() => {
        running = null;
      });
  });
  return async () => {
    cancel();
    await running;
  };
}
