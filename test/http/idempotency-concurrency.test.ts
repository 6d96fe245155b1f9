import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOrderSetup, orderBody, type OrderSetup } from '../helpers/factories.js';
import { TestApp, type Reply, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { Gate, WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fakeClock, fastEnv, registerEndpoint } from '../webhooks/support.js';

const N = 12;
/** IDEMPOTENCY_LOCK_TIMEOUT_MS of this suite: not the default, so that the tests prove the variable is read. */
const LOCK_TIMEOUT_MS = 90_000;

/**
 * A request still running when its key comes again. The webhook test call is the request that
 * can be held: it waits for the receiver, which answers only when the test opens the gate.
 */
describe.each(DIALECTS)('Idempotency-Key while its first request is running on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const clock = fakeClock();
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    // A long attempt timeout: the held call must still be waiting when the test opens the gate.
    t = await TestApp.start({
      dialect,
      clock: clock.clock,
      env: fastEnv({ WEBHOOK_TIMEOUT_MS: '60000', IDEMPOTENCY_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS) }),
    });
    setup = await createOrderSetup(t);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => t.close());

  const post = (clinic: TestClinic, url: string, body: unknown, key: string): Promise<Reply> =>
    t.request('POST', url, {
      headers: {
        'x-api-key': clinic.apiKey,
        accept: 'application/json',
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body,
    });

  /** A registered endpoint whose first answer waits for `gate`. */
  async function heldEndpoint(
    gate: Gate,
  ): Promise<{ receiver: WebhookReceiver; body: { clinic_id: string; webhook_id: string } }> {
    const receiver = await WebhookReceiver.start([{ status: 200, heldBy: gate }, { status: 200 }]);
    receivers.push(receiver);
    const { webhookId } = await registerEndpoint(t, setup.clinic, receiver.url());
    return { receiver, body: { clinic_id: setup.clinic.clinicId, webhook_id: webhookId } };
  }

  it('when the key comes again while its first request runs, then 409 CONFLICT without a second execution, and the replay once it is done', async () => {
    const gate = new Gate();
    const { receiver, body } = await heldEndpoint(gate);
    const first = post(setup.clinic, '/api/external/webhook/test', body, 'held-1');
    await receiver.waitFor(1);

    const during = await post(setup.clinic, '/api/external/webhook/test', body, 'held-1');
    expect(during.status).toBe(409);
    expect(during.body.error).toMatchObject({ code: 'CONFLICT', details: { 'Idempotency-Key': expect.any(String) } });
    expect(during.headers['retry-after']).toBe('1');

    gate.release();
    const done = await first;
    expect(done.status).toBe(200);
    const after = await post(setup.clinic, '/api/external/webhook/test', body, 'held-1');
    expect(after.status).toBe(200);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toEqual(done.body);
    expect(receiver.received).toHaveLength(1);
  });

  it('when the first request holds its key past the lock timeout, then a retry takes over, and only the newer holder\u2019s answer is stored', async () => {
    const gate = new Gate();
    const { receiver, body } = await heldEndpoint(gate);
    const first = post(setup.clinic, '/api/external/webhook/test', body, 'held-2');
    await receiver.waitFor(1);

    // Within IDEMPOTENCY_LOCK_TIMEOUT_MS the key is still the first request's...
    clock.advance(LOCK_TIMEOUT_MS - 1);
    expect((await post(setup.clinic, '/api/external/webhook/test', body, 'held-2')).status).toBe(409);
    // ...then, as if its process had died, its lock is stale and the retry runs.
    clock.advance(1);
    const retry = await post(setup.clinic, '/api/external/webhook/test', body, 'held-2');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(receiver.received).toHaveLength(2);

    gate.release();
    expect((await first).status).toBe(200);
    const later = await post(setup.clinic, '/api/external/webhook/test', body, 'held-2');
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.headers['idempotent-original-request-id']).toBe(retry.headers['x-request-id']);
    expect(later.body).toEqual(retry.body);
  });

  it(`when ${N} identical orders with one key arrive at once, then exactly one order is created and every other answer is 409 or its replay`, async () => {
    const orders = async () =>
      (await t.ctx.db.selectFrom('medication_requests').select('id').where('clinic_id', '=', setup.clinic.clinicId).execute())
        .length;
    const before = await orders();
    const replies = await Promise.all(
      Array.from({ length: N }, () => post(setup.clinic, '/api/external/medication-order', orderBody(setup), 'burst-1')),
    );
    expect(await orders()).toBe(before + 1);
    const created = replies.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
    expect(created).toHaveLength(1);
    for (const reply of replies) {
      if (reply.status === 200) expect(reply.body).toEqual(created[0]?.body);
      else expect(reply.status).toBe(409);
    }
    const events = await t.ctx.db.selectFrom('outbox_events').select('payload').where('type', '=', 'order.created').execute();
    const id = created[0]?.body.data.medication_request_id as string;
    expect(
      events.filter((e) => (JSON.parse(e.payload) as { medication_request_id?: string }).medication_request_id === id),
    ).toHaveLength(1);
  });
});
