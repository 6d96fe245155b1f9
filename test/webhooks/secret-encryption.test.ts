import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataKeyId, type DataKey } from '../../src/secrets/data-key.js';
import { Keyring } from '../../src/secrets/keyring.js';
import { WebhookWorker, type WorkerLogger } from '../../src/delivery/delivery-worker.js';
import { sealEndpointSecret } from '../../src/delivery/endpoint-secret.js';
import { rotateEncryptionKey } from '../../src/webhooks/secret-encryption.service.js';
import { replaceSecret } from '../../src/webhooks/webhook.repository.js';
import { TEST_DATA_ENCRYPTION_KEY, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesOf, emitEvent, fakeClock, fastEnv, registerEndpoint, type Registered } from './support.js';

const newKey = (): DataKey => {
  const key = randomBytes(32);
  return { id: dataKeyId(key), key };
};
const TEST_KEY_ID = dataKeyId(Buffer.from(TEST_DATA_ENCRYPTION_KEY, 'base64'));

/** What a worker logs, as objects (the fields and the message). */
function capturingLogger(): WorkerLogger & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = (fields: object, msg?: string) => void lines.push({ ...fields, msg });
  return { lines, info: log, warn: log, error: log } as WorkerLogger & { lines: Record<string, unknown>[] };
}

// Each test has a database of its own: some alter stored secrets, and rotation counts every row.
describe.each(DIALECTS)('webhook signing secrets at rest on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let receiver: WebhookReceiver;
  const time = fakeClock();
  const serverLogs: string[] = [];

  beforeEach(async () => {
    serverLogs.length = 0;
    t = await TestApp.start({
      dialect,
      clock: time.clock,
      env: fastEnv(),
      logStream: { write: (line: string) => void serverLogs.push(line) },
    });
    clinic = await t.createClinic();
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
    await t.close();
  });

  /** The row as stored, read with plain SQL. */
  const stored = async (webhookId: string) => {
    const { rows } = await sql<{
      secret: string;
      secret_key_id: string | null;
    }>`select secret, secret_key_id from webhook_endpoints where id = ${webhookId}`.execute(t.ctx.db);
    return rows[0]!;
  };
  const setStored = async (webhookId: string, secret: string, keyId: string | null) =>
    sql`update webhook_endpoints set secret = ${secret}, secret_key_id = ${keyId} where id = ${webhookId}`.execute(t.ctx.db);
  const testCall = (webhookId: string) =>
    t.partner(clinic.apiKey).post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
  /** Emits an event and lets a worker on `keyring` attempt it once. */
  const deliverWith = async (keyring: Keyring, logger?: WorkerLogger) => {
    const worker = new WebhookWorker({ ...t.ctx, keyring }, logger ? { logger } : {});
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    await worker.stop();
    return eventId;
  };
  const verifiesWith = (endpoint: Registered, index = -1) =>
    WebhookReceiver.verify(endpoint.secret, receiver.received.at(index)!, time.clock()).type as string;

  it('when an endpoint is registered, then its stored secret is AES-GCM ciphertext under the current key, never the plaintext', async () => {
    const endpoint = await registerEndpoint(t, clinic, receiver.url());
    const row = await stored(endpoint.webhookId);
    expect(row.secret_key_id).toBe(TEST_KEY_ID);
    expect(row.secret).toMatch(/^v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]{22}==:[A-Za-z0-9+/]+=*$/);
    expect(row.secret).not.toContain(endpoint.secret);
    expect(row.secret).not.toContain(endpoint.secret.slice(6, 30));
    expect(row.secret).not.toContain(Buffer.from(endpoint.secret.slice(6), 'base64').toString('hex').slice(0, 16));
  });

  it('when an event is delivered, then it is signed with the secret given at registration', async () => {
    const endpoint = await registerEndpoint(t, clinic, receiver.url());
    await deliverWith(t.ctx.keyring);
    expect(receiver.received).toHaveLength(1);
    expect(verifiesWith(endpoint)).toBe('order.created');
  });

  it('when the key is rotated, then secrets under the previous key still sign before rotation and are all under the new key after it', async () => {
    const register = async (path: string) => ({ path, ...(await registerEndpoint(t, clinic, receiver.url(path))) });
    const live = [await register('/a'), await register('/b')];
    const deleted = await register('/deleted');
    await t.partner(clinic.apiKey).delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: deleted.webhookId });
    const next = newKey();
    const rotating = new Keyring(next, [{ id: TEST_KEY_ID, key: Buffer.from(TEST_DATA_ENCRYPTION_KEY, 'base64') }]);
    /** Every live endpoint received the last event, and it verifies with the secret given at registration. */
    const expectSignedDeliveries = () => {
      expect(receiver.received).toHaveLength(live.length);
      for (const endpoint of live) {
        const request = receiver.received.find((r) => r.path === endpoint.path);
        expect(WebhookReceiver.verify(endpoint.secret, request!, time.clock()).type).toBe('order.created');
      }
    };

    // The new key current and the old one previous: values under the old key still decrypt.
    await deliverWith(rotating);
    expectSignedDeliveries();
    live.push(await register('/late')); // registered by a process still on the old key

    const result = await rotateEncryptionKey({ db: t.ctx.db, keyring: rotating, clock: time.clock });
    expect(result).toEqual({ current_key_id: next.id, reencrypted: 4, unreadable: [] });
    for (const { webhookId } of [...live, deleted]) expect((await stored(webhookId)).secret_key_id).toBe(next.id);
    expect(await rotateEncryptionKey({ db: t.ctx.db, keyring: rotating, clock: time.clock })).toEqual({
      current_key_id: next.id,
      reencrypted: 0,
      unreadable: [],
    });

    // The old key dropped: deliveries are still signed with the secrets given at registration.
    receiver.received.length = 0;
    await deliverWith(new Keyring(next));
    expectSignedDeliveries();
  });

  it('when a secret was replaced after it was read, then a re-encryption from the stale value changes nothing', async () => {
    const endpoint = await registerEndpoint(t, clinic, receiver.url());
    const read = { id: endpoint.webhookId, ...(await stored(endpoint.webhookId)) };
    // Another process (a start, a rotation) re-encrypted it meanwhile.
    const meanwhile = sealEndpointSecret(t.ctx.keyring, endpoint.webhookId, endpoint.secret);
    expect(await replaceSecret(t.ctx.db, read, meanwhile)).toBe(true);
    const late = sealEndpointSecret(t.ctx.keyring, endpoint.webhookId, endpoint.secret);
    expect(await replaceSecret(t.ctx.db, read, late)).toBe(false);
    expect(await stored(endpoint.webhookId)).toEqual(meanwhile);
  });

  it('when a stored secret is altered, then nothing is sent, the attempt records why, the endpoint is not held failing, and the test call answers 500', async () => {
    const endpoint = await registerEndpoint(t, clinic, receiver.url());
    const row = await stored(endpoint.webhookId);
    const parts = row.secret.split(':');
    parts[3] = `${parts[3]!.startsWith('A') ? 'B' : 'A'}${parts[3]!.slice(1)}`;
    await setStored(endpoint.webhookId, parts.join(':'), row.secret_key_id);

    const logger = capturingLogger();
    const eventId = await deliverWith(t.ctx.keyring, logger);
    expect(receiver.received).toHaveLength(0);
    const [delivery] = await deliveriesOf(t.ctx, eventId);
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1, last_response_status: null });
    expect(delivery!.last_error).toBe(
      `not sent: the signing secret of webhook endpoint ${endpoint.webhookId} cannot be decrypted: ` +
        `failed authentication under key ${TEST_KEY_ID} (altered, or copied from another row)`,
    );
    const endpointRow = await t.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.webhookId)
      .executeTakeFirstOrThrow();
    expect(endpointRow).toMatchObject({ status: 'active', failing_since: null });
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        msg: 'webhook not sent: its signing secret cannot be decrypted',
        endpointId: endpoint.webhookId,
      }),
    );
    expect(JSON.stringify(logger.lines)).not.toContain(endpoint.secret.slice(6));

    const res = await testCall(endpoint.webhookId);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(res.body)).not.toContain(TEST_KEY_ID);
    expect(receiver.received).toHaveLength(0);
    // The operator finds the reason in the server's log, with the request id, and never the secret.
    const logged = serverLogs.map((line) => JSON.parse(line) as { level: number; reqId?: string; err?: { message: string } });
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 50,
        reqId: res.body.error.request_id,
        err: expect.objectContaining({ message: expect.stringContaining('cannot be decrypted: failed authentication') }),
      }),
    );
    expect(serverLogs.join('')).not.toContain(endpoint.secret.slice(6));
  });

  it("when a ciphertext is copied into another endpoint's row, then it does not decrypt there", async () => {
    const a = await registerEndpoint(t, clinic, receiver.url('/a'));
    const b = await registerEndpoint(t, clinic, receiver.url('/b'));
    const rowA = await stored(a.webhookId);
    await setStored(b.webhookId, rowA.secret, rowA.secret_key_id);

    expect((await testCall(b.webhookId)).status).toBe(500);
    expect(receiver.received).toHaveLength(0);
    expect((await testCall(a.webhookId)).body.data.delivered).toBe(true);
    expect(verifiesWith(a)).toBe('webhook.test');
  });

  it('when the key of a stored secret is not configured, then the delivery is not sent and says which key, and restoring the key delivers it', async () => {
    const endpoint = await registerEndpoint(t, clinic, receiver.url());
    const eventId = await deliverWith(new Keyring(newKey()));
    expect(receiver.received).toHaveLength(0);
    const [failed] = await deliveriesOf(t.ctx, eventId);
    expect(failed!.last_error).toContain(
      `encrypted under key ${TEST_KEY_ID}, which is neither DATA_ENCRYPTION_KEY nor in DATA_ENCRYPTION_KEY_PREVIOUS`,
    );

    // The key is back (the operator restored it): the next attempt goes out, signed as it should be.
    time.set(Date.parse(failed!.next_attempt_at!));
    const worker = new WebhookWorker(t.ctx);
    await worker.drain();
    await worker.stop();
    expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'delivered', attempt_count: 2 });
    expect(verifiesWith(endpoint)).toBe('order.created');
  });
});
