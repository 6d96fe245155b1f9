import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoAdvanceOnce, startSandboxAutoAdvance, type IntervalScheduler } from '../../src/fulfillment/sandbox-auto-advance.js';
import { createOrder, createOrderSetup, getOrder, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** A scheduler that only records what it is asked to schedule (nothing ever runs on its own). */
function recordingScheduler() {
  const scheduled: { intervalMs: number; cancelled: boolean }[] = [];
  const scheduler: IntervalScheduler = (intervalMs) => {
    const entry = { intervalMs, cancelled: false };
    scheduled.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  return { scheduler, scheduled };
}

describe.each(DIALECTS)('sandbox auto-advance (SANDBOX_AUTO_ADVANCE_MS) on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  const clock = () => new Date(now);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock, env: { SANDBOX_AUTO_ADVANCE_MS: '60000' } });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when an interval has passed on each pass, then a new order moves one step per pass until delivered, as the sandbox', async () => {
    const id = await createOrder(t, setup);
    expect(await autoAdvanceOnce(t.ctx, 60_000)).toBe(0); // not due yet
    const seen: string[] = [];
    for (let pass = 0; pass < 4; pass += 1) {
      now += 60_000;
      await autoAdvanceOnce(t.ctx, 60_000);
      seen.push((await getOrder(t, setup.clinic, id)).status);
    }
    expect(seen).toEqual(['processing', 'shipped', 'delivered', 'delivered']);
    const order = await getOrder(t, setup.clinic, id);
    expect(order.tracking_number).toMatch(/^\d{12}$/);
    expect(order.status_history.slice(1).map((h: { actor: string }) => h.actor)).toEqual(['sandbox', 'sandbox', 'sandbox']);
  });

  it('when an order was cancelled, then the timer leaves it alone', async () => {
    const id = await createOrder(t, setup);
    await t.partner(setup.clinic.apiKey).post(`/api/external/medication-order/${id}/cancel`);
    now += 120_000;
    await autoAdvanceOnce(t.ctx, 60_000);
    expect((await getOrder(t, setup.clinic, id)).status).toBe('cancelled');
  });

  it('when the timer runs in development, then orders move without any call', async () => {
    const id = await createOrder(t, setup);
    now += 1000;
    // The real setInterval scheduler; the test awaits the first completed pass instead of polling.
    let passed!: (moved: number) => void;
    const firstPass = new Promise<number>((resolve) => (passed = resolve));
    const stop = startSandboxAutoAdvance(
      { ...t.ctx, config: { ...t.ctx.config, sandboxAutoAdvanceMs: 20 } },
      { onPass: (moved) => passed(moved) },
    );
    try {
      expect(await firstPass).toBe(1);
    } finally {
      await stop();
    }
    const order = await getOrder(t, setup.clinic, id);
    expect(order.status).toBe('processing');
    expect(order.status_history.at(-1)).toMatchObject({ actor: 'sandbox' });
  });

  it('when the server is the production environment, then the timer never starts', async () => {
    const config = { ...t.ctx.config, sandboxAutoAdvanceMs: 20 };
    // The same setting in development schedules a pass every 20 ms...
    const development = recordingScheduler();
    const stopDevelopment = startSandboxAutoAdvance(
      { ...t.ctx, config: { ...config, env: 'development' } },
      { scheduler: development.scheduler },
    );
    expect(development.scheduled).toEqual([{ intervalMs: 20, cancelled: false }]);
    await stopDevelopment();
    expect(development.scheduled).toEqual([{ intervalMs: 20, cancelled: true }]);

    // ...and in production schedules nothing at all.
    const production = recordingScheduler();
    const stop = startSandboxAutoAdvance(
      { ...t.ctx, config: { ...config, env: 'production' } },
      { scheduler: production.scheduler },
    );
    expect(production.scheduled).toEqual([]);
    await stop();
    expect(production.scheduled).toEqual([]);
  });
});
