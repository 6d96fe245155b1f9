import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig, type DatabaseConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/database.js';
import type { Clock } from '../../src/clock.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { registerEndpointForPartner } from '../../src/webhooks/webhook.service.js';
import { TEST_DATA_ENCRYPTION_KEY } from '../helpers/test-app.js';
import { createTestDatabase, DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { attemptsOf, deliveriesOf, emitEvent, fakeClock, nextAttempt } from './support.js';

/** A database that outlives one runtime: a temporary SQLite file, or a PostgreSQL schema. */
async function durableDatabase(
  dialect: DialectName,
): Promise<{ config: DatabaseConfig; schema?: string; drop(): Promise<void> }> {
  if (dialect === 'postgres') return createTestDatabase('postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'webhooks-restart-'));
  return {
    config: { kind: 'sqlite', filename: path.join(dir, 'db.sqlite') },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe.each(DIALECTS)('webhook delivery across a restart on %s', (dialect) => {
  let database: Awaited<ReturnType<typeof durableDatabase>>;
  const open = async (clock?: Clock): Promise<Runtime> => {
    const config = loadConfig({
      DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      WEBHOOK_RETRY_SCHEDULE: '0,300ms,300ms,300ms',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    return openRuntime(
      { ...config, database: database.config },
      { ...(clock ? { clock } : {}), postgres: { ...(database.schema ? { schema: database.schema } : {}), poolSize: 3 } },
    );
  };
  beforeAll(async () => {
    database = await durableDatabase(dialect);
  });
  afterAll(async () => database.drop());

  it('when the server stops with deliveries pending, then it delivers them after it starts again', async () => {
    const receiver = await WebhookReceiver.start();
    const url = receiver.url();
    await receiver.stop(); // the partner's receiver is down

    // First life, on a clock stopped in the past (so its retry never comes due while it runs): an
    // event is attempted once and fails; another is written while no worker runs.
    const stoppedAt = new Date('2026-01-01T00:00:00.000Z');
    const first = await open(() => stoppedAt);
    const clinic = await createClinic(first.ctx, { name: 'Restart Clinic' }, null);
    const key = await issueApiKey(first.ctx, clinic.clinic_id, null);
    const identity = { clinicId: clinic.clinic_id, apiKeyId: key.api_key_id };
    const { secret } = await registerEndpointForPartner(
      first.ctx,
      identity,
      { clinic_id: clinic.clinic_id, webhook_url: url },
      partnerAuditContext(identity),
    );
    const worker = await WebhookWorker.start(first.ctx, { pollIntervalMs: 100 });
    const firstAttempt = nextAttempt(worker);
    const attempted = await emitEvent(first.ctx, clinic.clinic_id, 'order.created');
    expect(await firstAttempt).toMatchObject({ eventId: attempted, status: 'pending' });
    await worker.stop();
    const [afterFirstLife] = await deliveriesOf(first.ctx, attempted);
    const unsent = await emitEvent(first.ctx, clinic.clinic_id, 'order.cancelled');
    expect(afterFirstLife!.attempt_count).toBe(1);
    expect(afterFirstLife!.status).toBe('pending');
    expect(await deliveriesOf(first.ctx, unsent)).toEqual([]);
    await first.close();

    // The receiver comes back; a new server process starts on the same database.
    await receiver.restart();
    const second = await open();
    const worker2 = await WebhookWorker.start(second.ctx, { pollIntervalMs: 100 });
    try {
      const got = await receiver.waitFor(2);
      expect(got.map((r) => r.headers['webhook-id']).sort()).toEqual([attempted, unsent].sort());
      for (const request of got) WebhookReceiver.verify(secret, request);
      // Idle: both attempts are recorded.
      await worker2.whenIdle();
      expect((await deliveriesOf(second.ctx, attempted))[0]!.status).toBe('delivered');
      expect((await deliveriesOf(second.ctx, unsent))[0]!.status).toBe('delivered');
      const attempts = await attemptsOf(second.ctx, attempted);
      expect(attempts.at(-1)).toMatchObject({ response_status: 200, attempt_number: afterFirstLife!.attempt_count + 1 });
      expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
    } finally {
      await worker2.stop();
      await second.close();
      await receiver.stop();
    }
  });

  it('when a worker died owning an endpoint with deliveries taken, then they are sent once its short endpoint lease ends, long before their own', async () => {
    const receiver = await WebhookReceiver.start();
    const time = fakeClock();
    const runtime = await open(time.clock);
    const worker = new WebhookWorker(runtime.ctx);
    try {
      const clinic = await createClinic(runtime.ctx, { name: 'Takeover Clinic' }, null);
      const key = await issueApiKey(runtime.ctx, clinic.clinic_id, null);
      const identity = { clinicId: clinic.clinic_id, apiKeyId: key.api_key_id };
      const { webhook_id: endpointId } = await registerEndpointForPartner(
        runtime.ctx,
        identity,
        { clinic_id: clinic.clinic_id, webhook_url: receiver.url() },
        partnerAuditContext(identity),
      );
      const taken = [await emitEvent(runtime.ctx, clinic.clinic_id), await emitEvent(runtime.ctx, clinic.clinic_id)];
      await dispatchOutbox(runtime.ctx);
      // A worker took the endpoint and both deliveries, then died: its endpoint lease (renewed at
      // every look while it lived) ends in one WEBHOOK_LEASE_MS; the deliveries' backstop in 10 minutes.
      const leaseEnd = new Date(time.now() + runtime.ctx.config.webhookLeaseMs).toISOString();
      const backstop = new Date(time.now() + 10 * 60_000).toISOString();
      await runtime.ctx.db
        .updateTable('webhook_endpoints')
        .set({ lease_token: 'dead-worker', leased_until: leaseEnd, next_due_at: leaseEnd })
        .where('id', '=', endpointId)
        .execute();
      await runtime.ctx.db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: backstop, claim_token: 'dead-worker', next_attempt_at: backstop })
        .where('endpoint_id', '=', endpointId)
        .execute();

      // While the endpoint's lease holds, nothing is sent: the endpoint is still the dead worker's.
      await worker.drain();
      expect(receiver.received).toEqual([]);

      // Its lease over, the endpoint is taken over and the deliveries the dead worker held are sent, once each.
      time.set(Date.parse(leaseEnd) + 1);
      await worker.drain();
      expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...taken].sort());
      for (const eventId of taken) {
        expect((await deliveriesOf(runtime.ctx, eventId))[0]).toMatchObject({
          status: 'delivered',
          attempt_count: 1,
          claim_token: null,
        });
      }
    } finally {
      await worker.stop();
      await runtime.close();
      await receiver.stop();
    }
  });

  it('when a worker died during an attempt, then its lease expires and another worker attempts the delivery', async () => {
    const receiver = await WebhookReceiver.start();
    const time = fakeClock();
    const runtime = await open(time.clock);
    // Driven by hand under the fake clock: a drain attempts everything that is due and not leased.
    const worker = new WebhookWorker(runtime.ctx);
    try {
      const clinic = await createClinic(runtime.ctx, { name: 'Crash Clinic' }, null);
      const key = await issueApiKey(runtime.ctx, clinic.clinic_id, null);
      const identity = { clinicId: clinic.clinic_id, apiKeyId: key.api_key_id };
      await registerEndpointForPartner(
        runtime.ctx,
        identity,
        { clinic_id: clinic.clinic_id, webhook_url: receiver.url() },
        partnerAuditContext(identity),
      );
      const leased = await emitEvent(runtime.ctx, clinic.clinic_id);
      const free = await emitEvent(runtime.ctx, clinic.clinic_id, 'order.cancelled');
      await dispatchOutbox(runtime.ctx);
      // A worker claimed the first delivery and vanished: its lease runs for another 10 minutes.
      const leasedUntil = time.now() + 10 * 60_000;
      await runtime.ctx.db
        .updateTable('webhook_deliveries')
        // A lease makes the delivery due again when it ends (a visibility timeout).
        .set({
          claimed_until: new Date(leasedUntil).toISOString(),
          claim_token: 'dead-worker',
          next_attempt_at: new Date(leasedUntil).toISOString(),
        })
        .where('event_id', '=', leased)
        .execute();

      // While the lease holds, a drain delivers the other event but leaves the leased one alone.
      await worker.drain();
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([free]);
      expect((await deliveriesOf(runtime.ctx, leased))[0]).toMatchObject({
        status: 'pending',
        attempt_count: 0,
        claim_token: 'dead-worker',
      });

      // Once it has expired, the delivery is attempted, once.
      time.set(leasedUntil + 1);
      await worker.drain();
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([free, leased]);
      const [delivery] = await deliveriesOf(runtime.ctx, leased);
      expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 1, claim_token: null, claimed_until: null });
    } finally {
      await worker.stop();
      await runtime.close();
      await receiver.stop();
    }
  });
});
