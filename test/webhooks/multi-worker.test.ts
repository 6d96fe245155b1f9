import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig } from '../../src/config.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { createHttpSender } from '../../src/delivery/http-sender.js';
import type { WebhookSender } from '../../src/delivery/types.js';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { registerEndpointForPartner } from '../../src/webhooks/webhook.service.js';
import { TEST_DATA_ENCRYPTION_KEY } from '../helpers/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import { Gate, WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitEvent, NO_POLL_MS } from './support.js';

/** A sender that counts what it sends, to see both workers at work. */
function countingSender(): WebhookSender & { sent: number } {
  const inner = createHttpSender({ policy: { allowHttp: true, allowPrivate: true }, timeoutMs: 2000 });
  const sender = {
    sent: 0,
    send: async (request: Parameters<WebhookSender['send']>[0]) => {
      sender.sent++;
      return inner.send(request);
    },
    close: () => inner.close(),
  };
  return sender;
}

// Several workers on one database is a PostgreSQL deployment (SQLite is one process).
describe.skipIf(!DIALECTS.includes('postgres'))('several webhook workers on one PostgreSQL database', () => {
  let database: TestDatabase;
  const runtimes: Runtime[] = [];
  const workers: WebhookWorker[] = [];
  const senders = [countingSender(), countingSender()];
  let receivers: WebhookReceiver[];
  let api: Runtime;
  let clinicId: string;

  const open = async () => {
    const config = loadConfig({
      DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms',
    });
    const runtime = await openRuntime(
      { ...config, database: database.config },
      { postgres: { schema: database.schema!, poolSize: 4 } },
    );
    runtimes.push(runtime);
    return runtime;
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    api = await open(); // the API process: no worker in it
    for (const sender of senders) {
      const runtime = await open();
      // Polling only every hour: within a test, only LISTEN/NOTIFY wakes these workers.
      workers.push(await WebhookWorker.start(runtime.ctx, { sender, concurrency: 4, pollIntervalMs: NO_POLL_MS }));
    }
    receivers = [await WebhookReceiver.start(), await WebhookReceiver.start()];
    const clinic = await createClinic(api.ctx, { name: 'Busy Clinic' }, null);
    const key = await issueApiKey(api.ctx, clinic.clinic_id, null);
    clinicId = clinic.clinic_id;
    for (const receiver of receivers) {
      const identity = { clinicId, apiKeyId: key.api_key_id };
      await registerEndpointForPartner(
        api.ctx,
        identity,
        { clinic_id: clinicId, webhook_url: receiver.url() },
        partnerAuditContext(identity),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all(senders.map((s) => s.close()));
    await Promise.all(receivers.map((r) => r.stop()));
    await Promise.all(runtimes.map((r) => r.close()));
    await database.drop();
  });

  it('when the API process writes an event, then a worker in another process wakes at once (NOTIFY) and delivers it', async () => {
    // Both workers have had their first look at the queue: only a wake-up makes them look again.
    await Promise.all(workers.map((w) => w.whenIdle()));
    const eventId = await emitEvent(api.ctx, clinicId);
    for (const receiver of receivers) {
      const [got] = await receiver.waitFor(1);
      expect(got!.headers['webhook-id']).toBe(eventId);
    }
  });

  it(
    'when two workers share the queue, then each event reaches each endpoint exactly once between them',
    { timeout: 60_000 },
    async () => {
      const offset = receivers.map((r) => r.received.length);
      const sentBefore = senders.map((s) => s.sent);
      const gate = new Gate();
      for (const receiver of receivers) receiver.respondWith({ heldBy: gate });
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push(await emitEvent(api.ctx, clinicId));
      // A worker holds at most 4 attempts (its concurrency), so it takes on one endpoint (whose max_in_flight,
      // 10, is more than that) and leaves the other to the other worker: 8 held in all, 4 at each endpoint,
      // means both workers are at work, each on its own endpoint.
      for (const [i, receiver] of receivers.entries()) await receiver.waitFor(offset[i]! + 4);
      expect(receivers.map((r) => r.pending)).toEqual([4, 4]);
      expect(senders.map((s, i) => s.sent - sentBefore[i]!)).toEqual([4, 4]);
      gate.release();
      for (const [i, receiver] of receivers.entries()) await receiver.waitFor(offset[i]! + 40, 45_000);
      // Idle: every attempt either worker started is finished and recorded.
      await Promise.all(workers.map((w) => w.whenIdle()));
      const rows = await api.ctx.db.selectFrom('webhook_deliveries').select('status').where('event_id', 'in', ids).execute();
      expect(rows).toHaveLength(80);
      expect(rows.every((r) => r.status === 'delivered')).toBe(true);

      for (const [i, receiver] of receivers.entries()) {
        const seen = receiver.received.slice(offset[i]).map((r) => r.headers['webhook-id'] as string);
        expect(seen).toHaveLength(40);
        expect(new Set(seen)).toEqual(new Set(ids));
      }
      const attempts = await api.ctx.db
        .selectFrom('webhook_delivery_attempts')
        .select('delivery_id')
        .where('event_id', 'in', ids)
        .execute();
      expect(attempts).toHaveLength(80);
      expect(senders[0]!.sent + senders[1]!.sent).toBe(82);
    },
  );
});
