import type { AppContext } from '../context.js';
import { setIntervalScheduler, type IntervalScheduler } from '../shared/interval-scheduler.js';
import { USAGE_FLUSH_INTERVAL_MS } from './usage-tally.js';

export interface DeprecationUsageFlushOptions {
  /** How the flushes are scheduled (default: `setIntervalScheduler`); tests inject their own. */
  scheduler?: IntervalScheduler;
}

/**
 * Starts writing the server's counted uses of deprecated things every USAGE_FLUSH_INTERVAL_MS (the
 * timer decides when; the tally decides what: usage-tally.ts). Returns its stop function, which
 * awaits a write under way; the last counts are written when the runtime closes (bootstrap.ts).
 */
export function startDeprecationUsageFlush(
  ctx: Pick<AppContext, 'deprecationUsage'>,
  options: DeprecationUsageFlushOptions = {},
): () => Promise<void> {
  const schedule = options.scheduler ?? setIntervalScheduler;
  let running: Promise<void> | null = null;
  const cancel = schedule(USAGE_FLUSH_INTERVAL_MS, () => {
    if (running) return;
    // The tally logs a failed write itself and keeps its counts: this never rejects.
    running = ctx.deprecationUsage.flush().finally(() => {
      running = null;
    });
  });
  return async () => {
    cancel();
    await running;
  };
}
