import type { AppContext, ServiceContext } from '../context.js';
import { AppError } from '../errors.js';
import { advanceOrder } from './order-moves.service.js';
import * as repo from '../orders/order.repository.js';
import { setIntervalScheduler, type IntervalScheduler } from '../shared/interval-scheduler.js';

type Ctx = ServiceContext & Pick<AppContext, 'logger'>;

const BATCH = 100;

/**
 * One pass of the development setting SANDBOX_AUTO_ADVANCE_MS: every order still moving whose last
 * change is at least `intervalMs` old goes one step further (pending → processing → shipped →
 * delivered), as the sandbox actor. An order changed meanwhile by someone else is skipped.
 * Returns how many orders moved.
 */
export async function autoAdvanceOnce(ctx: Ctx, intervalMs: number): Promise<number> {
  const cutoff = new Date(ctx.clock().getTime() - intervalMs).toISOString();
  const due = await repo.listOrdersToAdvance(ctx.db, cutoff, BATCH);
  let moved = 0;
  for (const order of due) {
    try {
      await advanceOrder(ctx, 'all', order.id, null);
      moved += 1;
    } catch (error) {
      // A lost race (409) just means the order moved on its own; anything else is logged, not fatal.
      if (!(error instanceof AppError && error.statusCode === 409))
        ctx.logger?.error({ err: error }, 'sandbox auto-advance failed');
    }
  }
  return moved;
}

// The scheduler moved to shared/ (the idempotency purge uses it too); re-exported for existing callers.
export { setIntervalScheduler, type IntervalScheduler } from '../shared/interval-scheduler.js';

export interface SandboxAutoAdvanceOptions {
  /** How the passes are scheduled (default: `setIntervalScheduler`); tests inject their own. */
  scheduler?: IntervalScheduler;
  /** Called after each pass that completed, with how many orders it moved (for logs, metrics and tests). */
  onPass?: (moved: number) => void;
}

/**
 * Starts the timer in the development environment when SANDBOX_AUTO_ADVANCE_MS is above 0; returns
 * its stop function (a no-op otherwise: nothing is scheduled at all). Passes never overlap.
 */
export function startSandboxAutoAdvance(ctx: Ctx, options: SandboxAutoAdvanceOptions = {}): () => Promise<void> {
  const intervalMs = ctx.config.sandboxAutoAdvanceMs;
  if (ctx.config.env !== 'development' || intervalMs <= 0) return async () => undefined;
  const schedule = options.scheduler ?? setIntervalScheduler;
  let running: Promise<unknown> | null = null;
  const cancel = schedule(intervalMs, () => {
    if (running) return;
    running = autoAdvanceOnce(ctx, intervalMs)
      .then((moved) => options.onPass?.(moved))
      .catch((error: unknown) => ctx.logger?.error({ err: error }, 'sandbox auto-advance failed'))
      .finally(() => {
        running = null;
      });
  });
  return async () => {
    cancel();
    await running;
  };
}
