import { afterAll, expect, it } from 'vitest';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig } from '../../src/config.js';
import { WebhookWorker } from '../../src/webhooks/delivery-worker.js';
import type { SendOutcome, WebhookSender } from '../../src/webhooks/http-sender.js';
import { registerWebhook } from '../../src/webhooks/webhook.service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { emitEvent, fakeClock, NO_POLL_MS } from '../webhooks/support.js';

let database: TestDatabase;
let runtime: Runtime;
afterAll(async () => {
  await runtime.close();
  await database.drop();
});

it('scratch: slow endpoints under default concurrency', async () => {
  database = await createTestDatabase('sqlite');
  const config = loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  runtime = await openRuntime({ ...config, database: database.config });
  const time = fakeClock(Date.now());
  const ctx = { ...runtime.ctx, clock: time.clock };
  const ENDPOINTS_PER_CLINIC = 8;
  const EVENTS = Number(process.env.EVENTS ?? 200);
  const clinics: string[] = [];
  for (let c = 0; c < Number(process.env.CLINICS ?? 2); c++) {
    const clinic = await createClinic(ctx, { name: `Slow ${c}` });
    const key = await issueApiKey(ctx, clinic.clinic_id);
    for (let e = 0; e < ENDPOINTS_PER_CLINIC; e++) {
      const ids = { clinicId: clinic.clinic_id, apiKeyId: key.api_key_id };
      await registerWebhook(ctx, ids, { clinic_id: clinic.clinic_id, webhook_url: `http://127.0.0.1:9/c${c}e${e}`, max_in_flight: 50 }, partnerAuditContext(ids));
    }
    clinics.push(clinic.clinic_id);
  }
  const pending: (() => void)[] = [];
  const sends = new Map<string, number>();
  let maxAtOnce = 0;
  const sender: WebhookSender = {
    send: ({ url, headers }) => {
      const k = `${url} ${headers['webhook-id']}`;
      sends.set(k, (sends.get(k) ?? 0) + 1);
      return new Promise<SendOutcome>((resolve) => {
        pending.push(() => resolve({ ok: true, kind: 'success', statusCode: 200, durationMs: 9_900, responseBody: 'ok', error: null, retryAfter: null }));
        maxAtOnce = Math.max(maxAtOnce, pending.length);
      });
    },
    close: async () => undefined,
  };
  for (let i = 0; i < EVENTS; i++) for (const clinicId of clinics) await emitEvent(ctx, clinicId);
  const worker = await WebhookWorker.start(ctx, { sender, pollIntervalMs: NO_POLL_MS });
  const settle = () => new Promise((r) => setTimeout(r, 400));
  await settle();
  let rounds = 0;
  // Each round: the slow endpoints answer 200 just under the 10 s timeout.
  while (pending.length > 0 && rounds < 200) {
    rounds += 1;
    time.advance(9_900);
    for (const answer of pending.splice(0)) answer();
    await settle();
    const st = await ctx.db.selectFrom('webhook_deliveries').select(['status', 'claimed_until', 'next_attempt_at']).execute();
    const now = time.clock().toISOString();
    console.log('R', rounds, 'pending', pending.length, 'leased', st.filter((r) => r.status === 'pending' && r.claimed_until !== null).length, 'expired', st.filter((r) => r.status === 'pending' && r.claimed_until !== null && r.claimed_until < now).length, 'untaken', st.filter((r) => r.status === 'pending' && r.claimed_until === null).length, 'delivered', st.filter((r) => r.status === 'delivered').length);
  }
  await worker.stop();
  const rows = await ctx.db.selectFrom('webhook_deliveries').select(['status']).execute();
  const twice = [...sends.values()].filter((n) => n > 1).length;
  console.log({ rounds, maxAtOnce, deliveries: rows.length, delivered: rows.filter((r) => r.status === 'delivered').length, sent: [...sends.values()].reduce((a, b) => a + b, 0), sentTwiceOrMore: twice });
  expect(twice).toBe(0);
}, 120_000);
