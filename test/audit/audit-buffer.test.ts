import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InsertQueryNode, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { AuditReadBuffer } from '../../src/audit/audit-buffer.js';
import type { AuditedResource } from '../../src/audit/audit-vocabulary.js';
import { openRuntime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig, type DatabaseConfig } from '../../src/config.js';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp } from '../helpers/test-app.js';
import { createTestDatabase, DIALECTS } from '../helpers/test-db.js';
import { manualScheduler, refuseAuditRows } from './support.js';

const audit = partnerAuditContext(
  { clinicId: '00000000-0000-4000-8000-0000000000c1', apiKeyId: '00000000-0000-4000-8000-0000000000a1' },
  { requestId: 'req-1', clientAddress: '203.0.113.7' },
);
const patient = (n: number): AuditedResource => ({
  type: 'patient',
  id: `00000000-0000-4000-8000-00000000000${n}`,
  clinicId: audit.actor.type === 'partner' ? audit.actor.clinicId : '',
});

function capturingLogger() {
  return { warn: vi.fn(), error: vi.fn(), info: vi.fn() };
}

describe.each(DIALECTS)('the audit read buffer on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  const storedReads = async (ids: string[]) =>
    t.ctx.db.selectFrom('audit_events').select(['resource_id', 'request_id']).where('resource_id', 'in', ids).execute();

  it('when a flush writes many rows, then other work runs between its INSERTs (a long flush does not hold every request)', async () => {
    let inserts = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        if (InsertQueryNode.is(args.node)) inserts += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const buffer = new AuditReadBuffer({
      db: t.ctx.db.withPlugin(counting),
      clock: t.ctx.clock,
      logger: capturingLogger(),
      scheduler: manualScheduler().scheduler,
    });
    const resources = Array.from({ length: 250 }, (_, i) => ({ ...patient(0), id: randomUUID(), n: i }));
    buffer.recordReads(audit, resources);
    const flushed = buffer.flush();
    let insertsWhenOtherWorkRan = -1;
    setImmediate(() => (insertsWhenOtherWorkRan = inserts));
    await flushed;
    expect(inserts).toBe(3);
    expect(insertsWhenOtherWorkRan).toBeGreaterThanOrEqual(0);
    expect(insertsWhenOtherWorkRan).toBeLessThan(3);
    expect(await storedReads(resources.map((r) => r.id))).toHaveLength(250);
    await buffer.close();
  });

  it('when reads are recorded, then the timer writes them in one batch, at least every 250 ms', async () => {
    const timer = manualScheduler();
    const buffer = new AuditReadBuffer({
      db: t.ctx.db,
      clock: t.ctx.clock,
      logger: capturingLogger(),
      scheduler: timer.scheduler,
    });
    buffer.recordReads(audit, [patient(1), patient(2)]);
    expect(timer.state.intervalMs).toBe(250);
    expect(buffer.size).toBe(2);

    timer.tick();
    await buffer.whenIdle();
    expect(buffer.size).toBe(0);
    expect(await storedReads([patient(1).id, patient(2).id])).toHaveLength(2);
    await buffer.close();
    expect(timer.state.cancelled).toBe(true);
  });

  it('when writing fails, then the rows are kept, the failure is logged once, and a later flush writes each row once', async () => {
    const timer = manualScheduler();
    const logger = capturingLogger();
    const buffer = new AuditReadBuffer({
      db: t.ctx.db,
      clock: t.ctx.clock,
      logger,
      metrics: t.ctx.metrics,
      scheduler: timer.scheduler,
    });
    const rows = [patient(3), patient(4), patient(5)];
    const restore = await refuseAuditRows(t.ctx, `new.resource_id = '${patient(4).id}'`);
    try {
      buffer.recordReads(audit, rows);
      timer.tick();
      await buffer.whenIdle();
      await expect(buffer.flush()).rejects.toThrow(/refused by the test/);
      expect(buffer.size).toBe(3);
      expect(await storedReads(rows.map((r) => r.id))).toEqual([]);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect((await t.ctx.metrics.auditFlushFailures.get()).values[0]?.value).toBe(2);
    } finally {
      await restore();
    }

    timer.tick();
    await buffer.whenIdle();
    expect(buffer.size).toBe(0);
    const stored = await storedReads(rows.map((r) => r.id));
    expect(stored.map((r) => r.resource_id).sort()).toEqual(rows.map((r) => r.id));
    expect(stored.every((r) => r.request_id === 'req-1')).toBe(true);
    expect(logger.info).toHaveBeenCalledWith('audit trail: buffered reads written again');
    await buffer.close();
  });

  it('when the trail has failed long enough to fill the buffer, then further reads are refused with 503 until it is written', async () => {
    const timer = manualScheduler();
    const buffer = new AuditReadBuffer({
      db: t.ctx.db,
      clock: t.ctx.clock,
      logger: capturingLogger(),
      scheduler: timer.scheduler,
      maxPending: 2,
    });
    const restore = await refuseAuditRows(t.ctx, `new.resource_id = '${patient(6).id}'`);
    try {
      buffer.recordReads(audit, [patient(6), patient(7)]);
      await expect(buffer.flush()).rejects.toThrow(/refused by the test/);
      expect(() => buffer.recordReads(audit, [patient(8)])).toThrow(
        expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 }),
      );
      expect(buffer.size).toBe(2);
    } finally {
      await restore();
    }
    await buffer.flush();
    buffer.recordReads(audit, [patient(8)]);
    expect(buffer.size).toBe(1);
    await buffer.close();
  });

  it('when the last write at shutdown fails, then close rejects and the rows are in the error log', async () => {
    const logger = capturingLogger();
    const buffer = new AuditReadBuffer({ db: t.ctx.db, clock: t.ctx.clock, logger, scheduler: manualScheduler().scheduler });
    const restore = await refuseAuditRows(t.ctx, `new.resource_id = '${patient(6).id}'`);
    try {
      buffer.recordReads(audit, [patient(6)]);
      await expect(buffer.close()).rejects.toThrow(/refused by the test/);
    } finally {
      await restore();
    }
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]?.[0].audit_events).toEqual([
      expect.objectContaining({ action: 'read', resource_type: 'patient', resource_id: patient(6).id, request_id: 'req-1' }),
    ]);
    expect(() => buffer.recordReads(audit, [patient(7)])).toThrow(/closed/);
  });

  it('when the server shuts down, then reads still in the buffer are written before the database closes', async () => {
    const database = await persistentDatabase(dialect);
    const config = {
      ...loadConfig({ ADMIN_TOKEN: 'x'.repeat(32), LOG_LEVEL: 'silent', RUN_WORKER: 'false' }),
      database: database.config,
    };
    const open = () =>
      openRuntime(config, {
        // The timer never fires: only the shutdown can write the read.
        audit: { scheduler: manualScheduler().scheduler },
        ...(database.schema ? { postgres: { schema: database.schema, poolSize: 2 } } : {}),
      });
    try {
      const first = await open();
      const app = await buildApp(first.ctx);
      const clinic = await createClinic(first.ctx, { name: 'Shutdown Clinic', free_shipping: false });
      const key = await issueApiKey(first.ctx, clinic.clinic_id);
      const headers = { 'x-api-key': key.api_key, accept: 'application/json', 'content-type': 'application/json' };
      const created = await app.inject({
        method: 'POST',
        url: '/api/external/patient',
        headers,
        payload: JSON.stringify(patientBody(clinic.clinic_id)),
      });
      const patientId: string = created.json().data.patient_id;
      const read = await app.inject({ method: 'GET', url: `/api/external/patient/${patientId}`, headers });
      expect(read.statusCode).toBe(200);
      expect(first.ctx.audit.size).toBe(1);

      // main.ts's shutdown: the server, then the runtime.
      await app.close();
      await first.close();

      const second = await open();
      try {
        const rows = await second.ctx.db.selectFrom('audit_events').selectAll().where('resource_id', '=', patientId).execute();
        expect(rows.map((r) => [r.action, r.request_id])).toEqual(
          expect.arrayContaining([
            ['create', created.headers['x-request-id']],
            ['read', read.headers['x-request-id']],
          ]),
        );
        expect(rows).toHaveLength(2);
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});

/** A database that outlives a runtime: a file for SQLite, the test's own schema for PostgreSQL. */
async function persistentDatabase(dialect: string): Promise<{ config: DatabaseConfig; schema?: string; drop(): Promise<void> }> {
  if (dialect === 'postgres') return createTestDatabase('postgres');
  const dir = await mkdtemp(path.join(tmpdir(), 'audit-'));
  return {
    config: { kind: 'sqlite', filename: path.join(dir, 'audit.sqlite') },
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}
