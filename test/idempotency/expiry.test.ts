import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PURGE_INTERVAL_MS, startIdempotencyKeyPurge } from '../../src/idempotency/idempotency-purge.js';
import { KEY_TTL_MS, purgeExpiredIdempotencyKeys } from '../../src/idempotency/idempotency.service.js';
import type { IntervalScheduler } from '../../src/shared/interval-scheduler.js';
import { createOrderSetup, orderBody, type OrderSetup } from '../helpers/factories.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

describe.each(DIALECTS)('expiry and purge of idempotency keys on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const clock = fakeClock();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  const order = (key: string, overrides: Record<string, unknown> = {}): Promise<Reply> =>
    t.request('POST', '/api/external/medication-order', {
      headers: {
        'x-api-key': setup.clinic.apiKey,
        accept: 'application/json',
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: orderBody(setup, overrides),
    });
  const keyRows = (key?: string) =>
    t.ctx.db
      .selectFrom('idempotency_keys')
      .select(['idempotency_key', 'expires_at'])
      .$if(key !== undefined, (q) => q.where('idempotency_key', '=', key ?? ''))
      .execute();

  it('when the key is used again just before 24 hours, then it replays; at 24 hours, the request runs anew', async () => {
    const first = await order('day-1');
    clock.advance(KEY_TTL_MS - 1);
    const replay = await order('day-1');
    expect(replay.headers['idempotent-replayed']).toBe('true');

    clock.advance(1);
    const again = await order('day-1');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.data.medication_request_id).not.toBe(first.body.data.medication_request_id);
    // The key now holds the new answer for a new 24 hours.
    expect((await keyRows('day-1'))[0]?.expires_at).toBe(new Date(clock.now() + KEY_TTL_MS).toISOString());
  });

  it('when an expired key comes back with a different body, then it runs: the key is free again', async () => {
    await order('day-2');
    clock.advance(KEY_TTL_MS);
    const other = await order('day-2', { carrier_id: 'ups', service_id: 'ups_ground' });
    expect(other.status).toBe(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
  });

  it('when the purge runs, then it deletes every expired key, in bounded batches, and keeps the others', async () => {
    for (const key of ['old-1', 'old-2', 'old-3', 'old-4', 'old-5']) await order(key);
    clock.advance(KEY_TTL_MS);
    await order('young-1');
    const expired = (await keyRows()).filter((r) => r.expires_at <= clock.clock().toISOString()).length;
    expect(expired).toBeGreaterThanOrEqual(5);

    // One batch of 2 per pass at most: the rest waits for the next pass.
    expect(await purgeExpiredIdempotencyKeys(t.ctx, { batchSize: 2, maxBatches: 1 })).toBe(2);
    expect(await purgeExpiredIdempotencyKeys(t.ctx, { batchSize: 2 })).toBe(expired - 2);
    expect((await keyRows()).map((r) => r.idempotency_key)).toEqual(['young-1']);
  });

  it('when the server\u2019s purge timer ticks, then a pass deletes the expired keys, and stopping it cancels the timer', async () => {
    await order('timer-1');
    clock.advance(KEY_TTL_MS);
    let tick = (): void => undefined;
    let interval = 0;
    let cancelled = false;
    const scheduler: IntervalScheduler = (intervalMs, run) => {
      interval = intervalMs;
      tick = run;
      return () => {
        cancelled = true;
      };
    };
    let passed!: (deleted: number) => void;
    const pass = new Promise<number>((resolve) => (passed = resolve));
    const stop = startIdempotencyKeyPurge(t.ctx, { scheduler, onPass: passed });

    tick();
    expect(await pass).toBeGreaterThanOrEqual(1);
    expect(interval).toBe(PURGE_INTERVAL_MS);
    expect(await keyRows('timer-1')).toEqual([]);
    await stop();
    expect(cancelled).toBe(true);
  });
});
