import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dataKeyId, type DataKey } from '../../src/secrets/data-key.js';
import { Keyring } from '../../src/secrets/keyring.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { rotateEncryptionKey } from '../../src/webhooks/secret-encryption.service.js';
import { auditRows } from '../audit/support.js';
import { TEST_DATA_ENCRYPTION_KEY, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.js';
import { emitEvent, fakeClock, fastEnv, registerEndpoint } from './support.js';

const HOUR = 60 * 60 * 1000;
const UNKNOWN_ID = '00000000-0000-4000-8000-0000000000ff';

describe.each(DIALECTS)('rotating a webhook signing secret on %s', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const time = fakeClock();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock, env: fastEnv() });
  });
  afterEach(async () => receiver.stop());
  afterAll(async () => t.close());

  const start = async (clinic: TestClinic) => {
    receiver = await WebhookReceiver.start();
    return registerEndpoint(t, clinic, receiver.url());
  };
  const rotate = (clinic: TestClinic, webhookId: string, body?: Record<string, unknown>) =>
    t.partner(clinic.apiKey).post(`/api/external/webhook/${webhookId}/rotate-secret`, body);
  const stored = (webhookId: string) =>
    t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', webhookId).executeTakeFirstOrThrow();
  const signatures = (request: ReceivedRequest) => String(request.headers['webhook-signature']).split(' ');
  /** Whether the standardwebhooks package accepts the request with `secret` (at the server's clock). */
  const verifies = (secret: string, request: ReceivedRequest) => {
    try {
      WebhookReceiver.verify(secret, request, time.clock());
      return true;
    } catch {
      return false;
    }
  };
  /** Emits an event for the clinic and lets `worker` deliver it; the request received. */
  const deliver = async (worker: WebhookWorker, clinic: TestClinic) => {
    const before = receiver.received.length;
    await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(receiver.received).toHaveLength(before + 1);
    return receiver.received.at(-1)!;
  };

  it('when the secret is rotated, then attempts carry two signatures, the new and the previous each verifying, until the window ends; then only the new one', async () => {
    const clinic = await t.createClinic();
    const { webhookId, secret: old } = await start(clinic);
    const worker = new WebhookWorker(t.ctx);
    try {
      // The worker decrypted the old secret for this endpoint already: a rotation must reach it.
      expect(signatures(await deliver(worker, clinic))).toHaveLength(1);

      const res = await rotate(clinic, webhookId, { previous_valid_hours: 2 });
      expect(res.status).toBe(200);
      const expiresAt = new Date(time.now() + 2 * HOUR).toISOString();
      expect(res.body).toEqual({
        success: true,
        data: { webhook_id: webhookId, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expiresAt },
        message: 'Signing secret rotated; store the new secret: it is not shown again',
      });
      const fresh = res.body.data.secret as string;
      expect(fresh).not.toBe(old);

      const during = await deliver(worker, clinic);
      expect(signatures(during)).toEqual([expect.stringMatching(/^v1,/), expect.stringMatching(/^v1,/)]);
      expect(verifies(fresh, during)).toBe(true);
      expect(verifies(old, during)).toBe(true);

      time.advance(2 * HOUR - 1000);
      expect(verifies(old, await deliver(worker, clinic))).toBe(true);

      time.advance(1000);
      const after = await deliver(worker, clinic);
      expect(signatures(after)).toHaveLength(1);
      expect(verifies(fresh, after)).toBe(true);
      expect(verifies(old, after)).toBe(false);
    } finally {
      await worker.stop();
    }
  });

  it('when previous_valid_hours is 0, then the previous secret stops signing at once and none is kept', async () => {
    const clinic = await t.createClinic();
    const { webhookId, secret: old } = await start(clinic);
    const res = await rotate(clinic, webhookId, { previous_valid_hours: 0 });
    expect(res.body.data.previous_secret_expires_at).toBeNull();
    expect(await stored(webhookId)).toMatchObject({
      previous_secret: null,
      previous_secret_key_id: null,
      previous_secret_expires_at: null,
    });
    const worker = new WebhookWorker(t.ctx);
    const request = await deliver(worker, clinic).finally(() => worker.stop());
    expect(signatures(request)).toHaveLength(1);
    expect(verifies(res.body.data.secret, request)).toBe(true);
    expect(verifies(old, request)).toBe(false);
  });

  it('when no body is sent, then the previous secret signs for 24 hours, and the test call carries both signatures', async () => {
    const clinic = await t.createClinic();
    const { webhookId, secret: old } = await start(clinic);
    const res = await rotate(clinic, webhookId);
    expect(res.status).toBe(200);
    expect(res.body.data.previous_secret_expires_at).toBe(new Date(time.now() + 24 * HOUR).toISOString());

    const test = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(test.body.data.delivered).toBe(true);
    const request = receiver.received.at(-1)!;
    expect(signatures(request)).toHaveLength(2);
    expect(verifies(res.body.data.secret, request)).toBe(true);
    expect(verifies(old, request)).toBe(true);
  });

  it('when the secret is rotated, then the change is audited as an update of the endpoint, and the new secret is stored encrypted', async () => {
    const clinic = await t.createClinic();
    const { webhookId, secret: old } = await start(clinic);
    const before = await stored(webhookId);
    const res = await rotate(clinic, webhookId, { previous_valid_hours: 1 });
    const after = await stored(webhookId);
    expect(after.previous_secret).toBe(before.secret);
    expect(after.previous_secret_key_id).toBe(before.secret_key_id);
    expect(after.secret).not.toContain(res.body.data.secret.slice(6));
    expect(after.secret).not.toBe(before.secret);
    expect(JSON.stringify(after)).not.toContain(old.slice(6));
    const rows = (await auditRows(t.ctx)).filter((r) => r.resource_id === webhookId && r.action !== 'create');
    expect(rows).toEqual([
      expect.objectContaining({
        action: 'update',
        resource_type: 'webhook_endpoint',
        actor_type: 'partner',
        clinic_id: clinic.clinicId,
        request_id: res.headers['x-request-id'],
      }),
    ]);
  });

  it("when the endpoint is another clinic's, unknown or deleted, then 404 and nothing changes; hours out of range are refused naming the field", async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const { webhookId } = await start(clinic);
    const deleted = await registerEndpoint(t, clinic, receiver.url('/deleted'));
    await t.partner(clinic.apiKey).delete(`/api/external/webhook/${deleted.webhookId}`);
    const before = await stored(webhookId);
    for (const [caller, id] of [
      [other, webhookId],
      [clinic, UNKNOWN_ID],
      [clinic, deleted.webhookId],
    ] as const) {
      const res = await rotate(caller, id, {});
      expect(res.status, id).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Webhook not found' });
    }
    for (const hours of [-1, 25, 1.5]) {
      const res = await rotate(clinic, webhookId, { previous_valid_hours: hours });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ previous_valid_hours: 'must be a whole number from 0 to 24' });
    }
    expect(await stored(webhookId)).toEqual(before);
  });

  it('when the data encryption key is rotated, then previous secrets are re-encrypted under the new key and still sign, and one whose window is over is dropped', async () => {
    const clinic = await t.createClinic();
    const { webhookId, secret: old } = await start(clinic);
    const ended = await registerEndpoint(t, clinic, receiver.url('/ended'));
    const fresh = (await rotate(clinic, webhookId, { previous_valid_hours: 3 })).body.data.secret as string;
    await rotate(clinic, ended.webhookId, { previous_valid_hours: 1 });
    time.advance(HOUR);

    const nextKey = randomBytes(32);
    const next: DataKey = { id: dataKeyId(nextKey), key: nextKey };
    const testKey = Buffer.from(TEST_DATA_ENCRYPTION_KEY, 'base64');
    const rotating = new Keyring(next, [{ id: dataKeyId(testKey), key: testKey }]);
    const result = await rotateEncryptionKey({ db: t.ctx.db, keyring: rotating, clock: time.clock });
    expect(result.unreadable).toEqual([]);
    expect(await stored(webhookId)).toMatchObject({ secret_key_id: next.id, previous_secret_key_id: next.id });
    expect(await stored(ended.webhookId)).toMatchObject({
      secret_key_id: next.id,
      previous_secret: null,
      previous_secret_key_id: null,
      previous_secret_expires_at: null,
    });

    // The old data key dropped: both signatures are still made.
    await t.partner(clinic.apiKey).delete(`/api/external/webhook/${ended.webhookId}`);
    const worker = new WebhookWorker({ ...t.ctx, keyring: new Keyring(next) });
    const request = await deliver(worker, clinic).finally(() => worker.stop());
    expect(verifies(fresh, request)).toBe(true);
    expect(verifies(old, request)).toBe(true);
  });
});
