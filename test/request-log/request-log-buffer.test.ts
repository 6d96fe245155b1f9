import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Metrics } from '../../src/metrics.js';
import { RequestLogBuffer, type FlushTimer } from '../../src/request-log/request-log-buffer.js';
import type { RequestLogEntry } from '../../src/request-log/request-log-entry.js';
import { emptyDatabaseTally, probeDatabases } from '../helpers/database-probe.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** A timer the test fires by hand: each armed run, with its delay, until fired or cancelled. */
function manualTimer() {
  const armed: { delayMs: number; run: () => void; cancelled: boolean }[] = [];
  const timer: FlushTimer = (delayMs, run) => {
    const entry = { delayMs, run, cancelled: false };
    armed.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  const live = () => armed.filter((entry) => !entry.cancelled);
  const fire = (): void => {
    for (const entry of live()) {
      entry.cancelled = true;
      entry.run();
    }
  };
  return { timer, live, fire };
}

async function counterValue(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}

describe.each(DIALECTS)('the request log’s batch writer on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let seq = 0;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());
  beforeEach(async () => {
    await t.ctx.requestLog.flush();
    await t.ctx.db.deleteFrom('request_log').execute();
  });

  const entry = (): RequestLogEntry => ({
    at: Date.parse('2031-01-01T00:00:00.000Z') + seq,
    clinicId: clinic.clinicId,
    method: 'GET',
    route: '/api/external/carriers',
    status: 200,
    durationMs: 1,
    requestId: `00000000-0000-4000-8000-${String((seq += 1)).padStart(12, '0')}`,
    apiKeyId: clinic.apiKeyId,
    oauthClientId: null,
    idempotencyKey: null,
    error: null,
  });
  const buffer = (options: { timer: FlushTimer; batchRows?: number; maxBuffered?: number; flushIntervalMs?: number }) =>
    new RequestLogBuffer({ db: t.ctx.db, logger: pino({ level: 'silent' }), metrics: t.ctx.metrics, ...options });
  const count = async () =>
    Number(
      (
        await t.ctx.db
          .selectFrom('request_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The INSERTs into request_log the database runs while `work` runs. */
  const insertsDuring = async (work: () => Promise<void>): Promise<number> => {
    const tally = emptyDatabaseTally();
    const stop = probeDatabases(tally);
    try {
      await work();
    } finally {
      stop();
    }
    return [...tally.sql].filter(([text]) => /^insert into "request_log"/i.test(text)).reduce((sum, [, n]) => sum + n, 0);
  };

  it('when rows are recorded, then nothing is written until the interval’s timer fires, and then all of them by one INSERT', async () => {
    const manual = manualTimer();
    const log = buffer({ timer: manual.timer, flushIntervalMs: 1_000 });
    for (let i = 0; i < 7; i += 1) log.record(entry());
    expect(manual.live().map((armed) => armed.delayMs)).toEqual([1_000]);
    expect(await count()).toBe(0);
    expect(
      await insertsDuring(async () => {
        manual.fire();
        await log.flush();
      }),
    ).toBe(1);
    expect(await count()).toBe(7);
    expect(log.size).toBe(0);
  });

  it('when a batch fills, then it is written at once (no waiting for the interval), each batch by one INSERT', async () => {
    const manual = manualTimer();
    const log = buffer({ timer: manual.timer, batchRows: 3 });
    const recorded: RequestLogEntry[] = [];
    const add = () => {
      const one = entry();
      recorded.push(one);
      log.record(one);
    };
    for (let i = 0; i < 3; i += 1) add();
    expect(manual.live().map((armed) => armed.delayMs)).toEqual([0]);
    for (let i = 0; i < 4; i += 1) add();
    // Seven rows in batches of three: three INSERTs (two full ones from the compiled template, one of a single row).
    expect(await insertsDuring(() => log.flush())).toBe(3);
    const rows = await t.ctx.db
      .selectFrom('request_log')
      .select(['request_id', 'occurred_at', 'status', 'clinic_id'])
      .orderBy('request_id')
      .execute();
    expect(rows).toEqual(
      recorded.map((one) => ({
        request_id: one.requestId,
        occurred_at: new Date(one.at).toISOString(),
        status: 200,
        clinic_id: clinic.clinicId,
      })),
    );
  });

  it('when more rows are held than the bound, then the extra ones are dropped and counted, and the partner never waits', async () => {
    const log = buffer({ timer: manualTimer().timer, maxBuffered: 5 });
    const before = await counterValue(t.ctx.metrics, 'request_log_dropped_rows_total', { reason: 'buffer_full' });
    // record() returns nothing to wait for: the partner's answer never depends on it.
    for (let i = 0; i < 8; i += 1) log.record(entry());
    expect(log.size).toBe(5);
    expect(await counterValue(t.ctx.metrics, 'request_log_dropped_rows_total', { reason: 'buffer_full' })).toBe(before + 3);
    await log.flush();
    expect(await count()).toBe(5);
  });

  it('when the database refuses a batch, then its rows are dropped and counted, flush does not fail, and the next batch is written', async () => {
    const log = buffer({ timer: manualTimer().timer });
    const before = await counterValue(t.ctx.metrics, 'request_log_dropped_rows_total', { reason: 'write_failed' });
    await sql`alter table request_log rename to request_log_away`.execute(t.ctx.db);
    try {
      log.record(entry());
      log.record(entry());
      await expect(log.flush()).resolves.toBeUndefined();
    } finally {
      await sql`alter table request_log_away rename to request_log`.execute(t.ctx.db);
    }
    expect(await counterValue(t.ctx.metrics, 'request_log_dropped_rows_total', { reason: 'write_failed' })).toBe(before + 2);
    expect(log.size).toBe(0);
    log.record(entry());
    await log.flush();
    expect(await count()).toBe(1);
  });

  it('when the buffer is closed, then the rows it holds are written and later ones are ignored', async () => {
    const log = buffer({ timer: manualTimer().timer });
    log.record(entry());
    log.record(entry());
    await log.close();
    expect(await count()).toBe(2);
    log.record(entry());
    await log.flush();
    expect(await count()).toBe(2);
  });
});

describe.each(DIALECTS)('the request log at shutdown on %s', (dialect) => {
  it('when the runtime closes (graceful shutdown), then the requests answered before are written before the database closes', async () => {
    const t = await TestApp.start({ dialect });
    const clinic = await t.createClinic();
    for (let i = 0; i < 3; i += 1) expect((await t.partner(clinic.apiKey).get('/api/external/carriers')).status).toBe(200);
    const written = () => counterValue(t.ctx.metrics, 'request_log_written_rows_total');
    const before = await written();
    expect(t.ctx.requestLog.size).toBeGreaterThanOrEqual(3);
    const held = t.ctx.requestLog.size;
    await t.close();
    expect(await written()).toBe(before + held);
    expect(await counterValue(t.ctx.metrics, 'request_log_dropped_rows_total', { reason: 'write_failed' })).toBe(0);
  });
});
