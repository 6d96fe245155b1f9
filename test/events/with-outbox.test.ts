import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNow } from '../../src/clock.js';
import type { Trx } from '../../src/db/database.js';
import { listenForNotifications } from '../../src/db/notifications.js';
import { WAKEUP_CHANNEL, withOutbox } from '../../src/events/outbox.js';
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

  /**
   * The app's context with its transactions watched: `wakeups` holds, for each in-process wake-up,
   * how many transactions had committed at that instant (read synchronously, so a wake-up sent
   * before the commit shows 0 however the database schedules its connections).
   */
  function watchCommits() {
    const state = { commits: 0, wakeups: [] as number[] };
    const db = new Proxy(t.ctx.db, {
      get(target, property, receiver) {
        if (property !== 'transaction') return Reflect.get(target, property, receiver) as unknown;
        return () => {
          const builder = target.transaction();
          return {
            execute: async <T>(work: (trx: Trx) => Promise<T>): Promise<T> => {
              const result = await builder.execute(work);
              state.commits += 1;
              return result;
            },
          };
        };
      },
    });
    const unsubscribe = t.ctx.outbox.subscribe(() => state.wakeups.push(state.commits));
    return { ctx: { ...t.ctx, db }, state, unsubscribe };
  }

  const eventRows = async (id: string) => t.ctx.db.selectFrom('outbox_events').select('id').where('id', '=', id).execute();

  it('when the work records an event, then the workers are woken once, after the commit', async () => {
    const watch = watchCommits();
    let id = '';
    await withOutbox(watch.ctx, async ({ recordEvent }) => {
      id = await recordEvent(isoNow(t.ctx.clock), event());
    });
    watch.unsubscribe();
    expect(watch.state.wakeups).toEqual([1]);
    expect(await eventRows(id)).toHaveLength(1);
  });

  it('when the work fails after recording an event, then nothing is committed and nobody is woken', async () => {
    const watch = watchCommits();
    let id = '';
    const failing = withOutbox(watch.ctx, async ({ recordEvent }) => {
      id = await recordEvent(isoNow(t.ctx.clock), event());
      throw new Error('the change failed');
    });
    await expect(failing).rejects.toThrow('the change failed');
    watch.unsubscribe();
    expect(watch.state).toEqual({ commits: 0, wakeups: [] });
    expect(await eventRows(id)).toEqual([]);
  });

  it('when the work records nothing and asks for no wake-up, then nobody is woken', async () => {
    const watch = watchCommits();
    await withOutbox(watch.ctx, async ({ trx }) => trx.selectFrom('clinics').select('id').execute());
    watch.unsubscribe();
    expect(watch.state).toEqual({ commits: 1, wakeups: [] });
  });

  it('when the work asks to wake the workers, then this process is woken once, after the commit', async () => {
    const watch = watchCommits();
    await withOutbox(watch.ctx, ({ wakeWorkers }) => wakeWorkers());
    watch.unsubscribe();
    expect(watch.state.wakeups).toEqual([1]);
  });

  it.runIf(dialect === 'postgres')(
    'when the work records an event or asks for a wake-up, then workers of other processes get a NOTIFY at commit',
    async () => {
      const woken: (() => void)[] = [];
      let wakeups = 0;
      const nextWakeup = () => new Promise<void>((resolve) => woken.push(resolve));
      const connected = nextWakeup();
      const listener = await listenForNotifications(t.ctx, WAKEUP_CHANNEL, () => {
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
