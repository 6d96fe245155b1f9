import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { REQUEST_LOG_PURGE_INTERVAL_MS, startRequestLogPurge } from '../../src/request-log/request-log-purge.js';
import { purgeRequestLog } from '../../src/request-log/request-log.service.js';
import type { IntervalScheduler } from '../../src/shared/interval-scheduler.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { firstIdAt, newIdAt } from '../../src/shared/ids.js';
import { fakeClock } from '../webhooks/support.js';

const DAY_MS = 86_400_000;

describe.each(DIALECTS)('the request log’s retention on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  const clock = fakeClock(Date.parse('2031-05-01T00:00:00.000Z'));

  beforeAll(async () => {
    // Three days' retention (the default is 14): the setting, not a constant, decides.
    t = await TestApp.start({ dialect, clock: clock.clock, env: { REQUEST_LOG_RETENTION_DAYS: '3' } });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());

  const call = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i += 1) expect((await t.partner(clinic.apiKey).get('/api/external/carriers')).status).toBe(200);
    await t.ctx.requestLog.flush();
  };
  const times = async () =>
    (await t.ctx.db.selectFrom('request_log').select('occurred_at').orderBy('occurred_at').execute()).map(
      (row) => row.occurred_at,
    );

  it('when the clock passes the retention, then the purge deletes exactly the rows older than it, in bounded batches', async () => {
    await call(5);
    clock.advance(DAY_MS);
    await call(1);
    const young = clock.clock().toISOString();

    // Three days less a millisecond after the first five: nothing is old enough.
    clock.advance(2 * DAY_MS - 1);
    expect(await purgeRequestLog(t.ctx)).toBe(0);
    clock.advance(1);
    // At most one batch of two per pass: the rest waits for the next pass.
    expect(await purgeRequestLog(t.ctx, { batchSize: 2, maxBatches: 1 })).toBe(0);
    clock.advance(1);
    expect(await purgeRequestLog(t.ctx, { batchSize: 2, maxBatches: 1 })).toBe(2);
    expect(await purgeRequestLog(t.ctx, { batchSize: 2 })).toBe(3);
    expect(await times()).toEqual([young]);
  });

  it('when the server’s purge timer ticks, then a pass deletes the expired rows, and stopping it cancels the timer', async () => {
    await call(2);
    clock.advance(3 * DAY_MS + 1);
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
    const passes: number[] = [];
    const stop = startRequestLogPurge(t.ctx, { scheduler, onPass: (deleted) => passes.push(deleted) });
    expect(interval).toBe(REQUEST_LOG_PURGE_INTERVAL_MS);
    tick();
    await stop();
    expect(cancelled).toBe(true);
    expect(passes[0]).toBeGreaterThanOrEqual(2);
    expect(await times()).toEqual([]);
  });
});

describe('REQUEST_LOG_RETENTION_DAYS', () => {
  it('when it is unset, then the log keeps 14 days; when it is 0, 367 or not a number, then the configuration is refused naming it', () => {
    expect(loadConfig({}).requestLogRetentionDays).toBe(14);
    expect(loadConfig({ REQUEST_LOG_RETENTION_DAYS: '30' }).requestLogRetentionDays).toBe(30);
    for (const value of ['0', '367', 'two weeks']) {
      expect(() => loadConfig({ REQUEST_LOG_RETENTION_DAYS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ REQUEST_LOG_RETENTION_DAYS: value })).toThrow(/REQUEST_LOG_RETENTION_DAYS/);
    }
  });
});

describe('UUIDv7 ids of a given millisecond (newIdAt, firstIdAt)', () => {
  it('when ids are made for two milliseconds, then each is a v7 UUID of its time, and firstIdAt separates them exactly', () => {
    const ms = Date.parse('2031-05-01T00:00:00.000Z');
    const id = newIdAt(ms);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
    expect(newIdAt(ms)).not.toBe(id);
    expect(id < firstIdAt(ms + 1)).toBe(true);
    expect(id < firstIdAt(ms)).toBe(false);
    expect(newIdAt(ms - 1) < firstIdAt(ms)).toBe(true);
  });
});
