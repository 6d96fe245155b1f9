import type { AppContext } from '../context.js';
import { setIntervalScheduler, type IntervalScheduler } from '../shared/interval-scheduler.js';
import { purgeRequestLog } from './request-log.service.js';

/** How often each server purges the request log's expired rows. */
export const REQUEST_LOG_PURGE_INTERVAL_MS = 10 * 60 * 1000;

export interface RequestLogPurgeOptions {
  /** How the passes are scheduled (default: `setIntervalScheduler`); tests inject their own. */
  scheduler?: IntervalScheduler;
  /** Called after each pass that completed, with how many rows it deleted (for tests). */
  onPass?: (deleted: number) => void;
}

/**
 * Starts the periodic purge of request log rows older than REQUEST_LOG_RETENTION_DAYS (the timer
 * decides when; request-log.service.ts decides what). Returns its stop function, which awaits a
 * pass under way.
 */
export function startRequestLogPurge(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'logger'>,
  options: RequestLogPurgeOptions = {},
): () => Promise<void> {
  const schedule = options.scheduler ?? setIntervalScheduler;
  let running: Promise<unknown> | null = null;
  const cancel = schedule(REQUEST_LOG_PURGE_INTERVAL_MS, () => {
    if (running) return;
    running = purgeRequestLog(ctx)
      .then((deleted) => options.onPass?.(deleted))
      .catch((error: unknown) => ctx.logger?.error({ err: error }, 'request log purge failed'))
      .finally(() => {
        running = null;
      });
  });
  return async () => {
    cancel();
    await running;
  };
}
