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

describe.each(DIALECTS)('the audit read trail (group commit) on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  const storedReads = async (ids: string[]) =>
    t.ctx.db.selectFrom('audit_events').select(['resource_id', 'request_id']).where('resource_id', 'in', ids).execute();

  /** A database handle that counts INSERTs and can hold the next one until `release()`. */
  function watchedDb() {
    const state = { inserts: 0, hold: null as Promise<void> | null };
    let release = (): void => undefined;
    const plugin: KyselyPlugin = {
      transformQuery: (args) => {
        if (InsertQueryNode.is(args.node)) state.inserts += 1;
        return args.node;
      },
      transformResult: async (args) => {
        if (state.hold) await state.hold;
        return args.result;
      },
    };
    return {
      db: t.ctx.db.withPlugin(plugin),
      state,
      holdNext: () => {
        state.hold = new Promise<void>((resolve) => (release = resolve));
      },
      release: () => {
        state.hold = null;
        release();
      },
    };
  }

  it('when reads arrive together, then they share one INSERT, and each resolves only once its row is committed', async () => {
    const watched = watchedDb();
    const batches = manualScheduler();
    const trail = new AuditReadBuffer({
      db: watched.db,
      clock: t.ctx.clock,
      logger: capturingLogger(),
      scheduler: batches.scheduler,
    });
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    let settled = 0;
    const reads = ids.map((id) => trail.recordReads(audit, [{ ...patient(0), id }]).then(() => (settled += 1)));
    expect(batches.queued).toBe(1);
    expect(trail.size).toBe(3);
    // Not written yet: nobody may answer.
    await Promise.resolve();
    expect(settled).toBe(0);
    expect(await storedReads(ids)).toEqual([]);

    batches.fire();
    await Promise.all(reads);
    expect(watched.state.inserts).toBe(1);
    expect(await storedReads(ids)).toHaveLength(3);
    expect(trail.size).toBe(0);
    await trail.close();
  });

  it('when reads arrive while a batch is being written, then they wait for it and go together in the next one, at once', async () => {
    const watched = watchedDb();
    const batches = manualScheduler();
    const trail = new AuditReadBuffer({
      db: watched.db,
      clock: t.ctx.clock,
      logger: capturingLogger(),
      scheduler: batches.scheduler,
    });
    const first = randomUUID();
    watched.holdNext();
    const firstRead = trail.recordReads(audit, [{ ...patient(0), id: first }]);
    batches.fire();
    await vi.waitUntil(() => watched.state.inserts === 1);
    const later = [randomUUID(), randomUUID()];
    const laterReads = later.map((id) => trail.recordReads(audit, [{ ...patient(0), id }]));
    // The write under way takes the next batch itself: nothing new is scheduled.
    expect(batches.queued).toBe(0);
    watched.release();
    await Promise.all([firstRead, ...laterReads]);
    expect(watched.state.inserts).toBe(2);
    expect(await storedReads([first, ...later])).toHaveLength(3);
    await trail.close();
  });

  it('when a batch has more than 500 rows, then it is written 500 rows per INSERT', async () => {
    const watched = watchedDb();
    const trail = new AuditReadBuffer({ db: watched.db, clock: t.ctx.clock, logger: capturingLogger() });
    const resources = Array.from({ length: 501 }, () => ({ ...patient(0), id: randomUUID() }));
    await trail.recordReads(audit, resources);
    expect(watched.state.inserts).toBe(2);
    expect(await storedReads(resources.map((r) => r.id))).toHaveLength(501);
    await trail.close();
  });

  it('when writing fails, then every read of the batch is refused with 503, logged once, and the next batch is written', async () => {
    const logger = capturingLogger();
    const failuresBefore = (await t.ctx.metrics.auditFlushFailures.get()).values[0]?.value ?? 0;
    const trail = new AuditReadBuffer({ db: t.ctx.db, clock: t.ctx.clock, logger, metrics: t.ctx.metrics });
    const rows = [patient(3), patient(4), patient(5)];
    const restore = await refuseAuditRows(t.ctx, `new.resource_id = '${patient(4).id}'`);
    try {
      const refused = expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 });
      const reads = rows.map((row) => trail.recordReads(audit, [row]));
      for (const read of reads) await expect(read).rejects.toEqual(refused);
      await expect(trail.recordReads(audit, [patient(4)])).rejects.toEqual(refused);
      expect(await storedReads(rows.map((r) => r.id))).toEqual([]);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect((await t.ctx.metrics.auditFlushFailures.get()).values[0]?.value).toBe(failuresBefore + 2);
    } finally {
      await restore();
    }
    await trail.recordReads(audit, rows);
    const stored = await storedReads(rows.map((r) => r.id));
    expect(stored.map((r) => r.resource_id).sort()).toEqual(rows.map((r) => r.id));
    expect(stored.every((r) => r.request_id === 'req-1')).toBe(true);
    expect(logger.info).toHaveBeenCalledWith('audit trail: reads are written again');
    expect(trail.size).toBe(0);
    await trail.close();
  });

  it('when too many rows are already waiting, then a further read is refused with 503 at once', async () => {
    const batches = manualScheduler();
    const trail = new AuditReadBuffer({
      db: t.ctx.db,
      clock: t.ctx.clock,
      logger: capturingLogger(),
      scheduler: batches.scheduler,
      maxPending: 2,
    });
    const waiting = trail.recordReads(audit, [patient(6), patient(7)]);
    await expect(trail.recordReads(audit, [patient(8)])).rejects.toEqual(
      expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 }),
    );
    expect(trail.size).toBe(2);
    batches.fire();
    await waiting;
    await trail.recordReads(audit, [patient(8)]);
    await trail.close();
  });

  it('when the trail closes, then the reads waiting are written first, and a later read is refused', async () => {
    const batches = manualScheduler();
    const trail = new AuditReadBuffer({
      db: t.ctx.db,
      clock: t.ctx.clock,
      logger: capturingLogger(),
      scheduler: batches.scheduler,
    });
    const id = randomUUID();
    const read = trail.recordReads(audit, [{ ...patient(0), id }]);
    await trail.close();
    await read;
    expect(await storedReads([id])).toHaveLength(1);
    await expect(trail.recordReads(audit, [patient(7)])).rejects.toThrow(/closed/);
  });

  it('when the server shuts down with a read waiting for its batch, then the read is written before the database closes, and answered', async () => {
    const database = await persistentDatabase(dialect);
    const config = {
      ...loadConfig({ ADMIN_TOKEN: 'x'.repeat(32), LOG_LEVEL: 'silent', RUN_WORKER: 'false' }),
      database: database.config,
    };
    const open = () =>
      openRuntime(config, {
        // The batch is never scheduled: only the shutdown can write the read.
        audit: { scheduler: manualScheduler().scheduler },
        ...(database.schema ? { postgres: { schema: database.schema, poolSize: 2 } } : {}),
      });
    try {
      const first = await open();
      const app = await buildApp(first.ctx);
      const clinic = await createClinic(first.ctx, { name: 'Shutdown Clinic', free_shipping: false }, null);
      const key = await issueApiKey(first.ctx, clinic.clinic_id, null);
      const headers = { 'x-api-key': key.api_key, accept: 'application/json', 'content-type': 'application/json' };
      const created = await app.inject({
        method: 'POST',
        url: '/api/external/patient',
        headers,
        payload: JSON.stringify(patientBody(clinic.clinic_id)),
      });
      const patientId: string = created.json().data.patient_id;
      const reading = app.inject({ method: 'GET', url: `/api/external/patient/${patientId}`, headers });
      await vi.waitUntil(() => first.ctx.audit.size === 1);

      // main.ts's shutdown: the server, then the runtime (whose trail writes the read and lets it be answered).
      const closing = app.close();
      await first.close();
      const read = await reading;
      await closing;
      expect(read.statusCode).toBe(200);

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
