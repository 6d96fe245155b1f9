import type { AppContext } from '../context.js';
import { setIntervalScheduler, type IntervalScheduler } from '../shared/interval-scheduler.js';
import { purgeExpiredIdempotencyKeys } from './idempotency.service.js';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'logger'>;

/**
 * How often each server purges expired keys. An expired key is already free (the next request
 * with it takes the row over), so the purge only bounds the table's size: every instance runs it,
 * and their deletes of the same rows are harmless.
 */
export const PURGE_INTERVAL_MS = 10 * 60 * 1000;

export interface IdempotencyPurgeOptions {
  /** How the passes are scheduled (default: `setIntervalScheduler`); tests inject their own. */
  scheduler?: IntervalScheduler;
  /** Called after each pass that completed, with how many keys it deleted (for logs and tests). */
  onPass?: (deleted: number) => void;
}

/** Starts the periodic purge of expired idempotency keys; returns its stop function (which awaits a running pass). */
export function startIdempotencyKeyPurge(ctx: Ctx, options: IdempotencyPurgeOptions = {}): () => Promise<void> {
  const schedule = options.scheduler ?? setIntervalScheduler;
  let running: Promise<unknown> | null = null;
  const cancel = schedule(PURGE_INTERVAL_MS, () => {
    if (running) return;
    running = purgeExpiredIdempotencyKeys(ctx)
      .then((deleted) => options.onPass?.(deleted))
      .catch((error: unknown) => ctx.logger?.error({ err: error }, 'idempotency key purge failed'))
      .finally(() => {
        running = null;
      });
  });
  return async () => {
    cancel();
    await running;
  };
}
