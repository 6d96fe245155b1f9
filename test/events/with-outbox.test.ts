import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNow } from '../../src/clock.js';
import { withOutbox } from '../../src/events/outbox.js';
import { listenForWakeups } from '../../src/webhooks/wakeup.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** The one way to write the outbox: commit, then wake the delivery workers (never before, never on failure). */
describe.each(DIALECTS)('withOutbox on %s', (dialect) => {
  let t: TestApp;
  let clinicId: string;
  const event = () => ({ clinicId, type: 'order.created' as const, payload: { status: 'pending' } });

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinicId = (await t.createClinic()).clinicId;
  });
  afterAll(async () => t.close());

  /** Counts in-process wake-ups and, at each, whether the event is already visible outside the transaction. */
  function watchWakeups(eventId: () => string | undefined) {
    const seen: boolean[] = [];
    const pending: Promise<void>[] = [];
    let calls = 0;
    const unsubscribe = t.ctx.outbox.subscribe(() => {
      calls += 1;
      const id = eventId();
      pending.push(
        (async () => {
          const row =
            id === undefined
              ? undefined
              : await t.ctx.db.selectFrom('outbox_events').select('id').where('id', '=', id).executeTakeFirst();
          seen.push(row !== undefined);
        })(),
      );
    });
    return {
      seen,
      calls: () => calls,
      settled: async () => {
        await Promise.all(pending);
        unsubscribe();
      },
    };
  }

  it('when the work records an event, then the workers are woken once, after commit, with the event visible', async () => {
    let id: string | undefined;
    const wakeups = watchWakeups(() => id);
    await withOutbox(t.ctx, async ({ recordEvent }) => {
      id = await recordEvent(isoNow(t.ctx.clock), event());
      // Still inside the transaction: nobody has been woken yet.
      expect(wakeups.calls()).toBe(0);
    });
    await wakeups.settled();
    expect(wakeups.seen).toEqual([true]);
  });

  it('when the work fails after recording an event, then nothing is committed and nobody is woken', async () => {
    let id: string | undefined;
    const wakeups = watchWakeups(() => id);
    const failing = withOutbox(t.ctx, async ({ recordEvent }) => {
      id = await recordEvent(isoNow(t.ctx.clock), event());
      throw new Error('the change failed');
    });
    await expect(failing).rejects.toThrow('the change failed');
    await wakeups.settled();
    expect(wakeups.seen).toEqual([]);
    expect(await t.ctx.db.selectFrom('outbox_events').select('id').where('id', '=', id!).execute()).toEqual([]);
  });

  it('when the work records nothing and asks for no wake-up, then nobody is woken', async () => {
    const wakeups = watchWakeups(() => undefined);
    await withOutbox(t.ctx, async ({ trx }) => trx.selectFrom('clinics').select('id').execute());
    await wakeups.settled();
    expect(wakeups.seen).toEqual([]);
  });

  it('when the work asks to wake the workers, then this process is woken after commit', async () => {
    const wakeups = watchWakeups(() => undefined);
    await withOutbox(t.ctx, async ({ wakeWorkers }) => {
      await wakeWorkers();
      expect(wakeups.calls()).toBe(0);
    });
    await wakeups.settled();
    expect(wakeups.seen).toEqual([false]);
  });

  it.runIf(dialect === 'postgres')(
    'when the work records an event or asks for a wake-up, then workers of other processes get a NOTIFY at commit',
    async () => {
      const woken: (() => void)[] = [];
      let wakeups = 0;
      const nextWakeup = () => new Promise<void>((resolve) => woken.push(resolve));
      const connected = nextWakeup();
      const listener = await listenForWakeups(t.ctx, () => {
        wakeups += 1;
        woken.shift()?.();
      });
      try {
        await connected; // the listener looks once when it connects
        const afterEvent = nextWakeup();
        await withOutbox(t.ctx, ({ recordEvent }) => recordEvent(isoNow(t.ctx.clock), event()));
        await afterEvent;
        const afterRequest = nextWakeup();
        await withOutbox(t.ctx, ({ wakeWorkers }) => wakeWorkers());
        await afterRequest;
        expect(wakeups).toBe(3);
      } finally {
        await listener.close();
      }
    },
  );
});
