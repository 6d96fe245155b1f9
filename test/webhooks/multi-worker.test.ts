import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig } from '../../src/config.js';
import { WebhookWorker } from '../../src/webhooks/delivery-worker.js';
import { createHttpSender, type WebhookSender } from '../../src/webhooks/http-sender.js';
import { registerWebhook } from '../../src/webhooks/webhook.service.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitEvent, eventually } from './support.js';

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
    const config = loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false', WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms' });
    const runtime = await openRuntime({ ...config, database: database.config }, { postgres: { schema: database.schema!, poolSize: 4 } });
    runtimes.push(runtime);
    return runtime;
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    api = await open(); // the API process: no worker in it
    for (const sender of senders) {
      const runtime = await open();
      // A long poll: only LISTEN/NOTIFY can wake these workers promptly.
      workers.push(await WebhookWorker.start(runtime.ctx, { sender, concurrency: 4, pollIntervalMs: 30_000 }));
    }
    receivers = [await WebhookReceiver.start([{ status: 200, delayMs: 20 }]), await WebhookReceiver.start([{ status: 200, delayMs: 20 }])];
    const clinic = await createClinic(api.ctx, { name: 'Busy Clinic' });
    const key = await issueApiKey(api.ctx, clinic.clinic_id);
    clinicId = clinic.clinic_id;
    for (const receiver of receivers) {
      await registerWebhook(api.ctx, { clinicId, apiKeyId: key.api_key_id }, { clinic_id: clinicId, webhook_url: receiver.url() });
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
    const started = Date.now();
    const eventId = await emitEvent(api.ctx, clinicId);
    const [got] = await receivers[0]!.waitFor(1, 2000);
    expect(got!.headers['webhook-id']).toBe(eventId);
    expect(got!.receivedAt - started).toBeLessThan(1000);
    await receivers[1]!.waitFor(1, 2000);
  });

  it('when two workers share the queue, then each event reaches each endpoint exactly once between them', async () => {
    const offset = receivers.map((r) => r.received.length);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await emitEvent(api.ctx, clinicId));
    for (const [i, receiver] of receivers.entries()) await receiver.waitFor(offset[i]! + 40, 15_000);
    await eventually(async () => {
      const rows = await api.ctx.db.selectFrom('webhook_deliveries').select('status').where('event_id', 'in', ids).execute();
      return rows.length === 80 && rows.every((r) => r.status === 'delivered');
    }, 5000, 'all deliveries delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));

    for (const [i, receiver] of receivers.entries()) {
      const seen = receiver.received.slice(offset[i]).map((r) => r.headers['webhook-id'] as string);
      expect(seen).toHaveLength(40);
      expect(new Set(seen)).toEqual(new Set(ids));
    }
    const attempts = await api.ctx.db.selectFrom('webhook_delivery_attempts').select('delivery_id').where('event_id', 'in', ids).execute();
    expect(attempts).toHaveLength(80);
    expect(senders[0]!.sent).toBeGreaterThan(0);
    expect(senders[1]!.sent).toBeGreaterThan(0);
    expect(senders[0]!.sent + senders[1]!.sent).toBe(82);
  });
});
