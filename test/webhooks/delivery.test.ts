import { InsertQueryNode, ValuesNode, type KyselyPlugin } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker, type RecordedAttempt } from '../../src/delivery/delivery-worker.js';
import { createHttpSender } from '../../src/delivery/http-sender.js';
import { urlPolicyOf } from '../../src/delivery/url-safety.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { Gate, WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  attemptsOf,
  deliveriesOf,
  emitEvent,
  fakeClock,
  fastEnv,
  nextAttempt,
  registerEndpoint,
  setEndpointLimits,
  settle,
  startWorker,
} from './support.js';

const DAY = 24 * 60 * 60 * 1000;

// The worker is driven by hand under a fake clock: `drain()` attempts everything due now and
// returns once those attempts are recorded, so "nothing else was sent" is checked after a drain.
describe.each(DIALECTS)('webhook delivery on %s', (dialect) => {
  let t: TestApp;
  let worker: WebhookWorker;
  const time = fakeClock();
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...script: Parameters<typeof WebhookReceiver.start>) => {
    const r = await WebhookReceiver.start(...script);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock, env: fastEnv() });
    worker = new WebhookWorker(t.ctx);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it('when an event is written, then every endpoint of its clinic receives it, signed and verifiable with standardwebhooks', async () => {
    const clinic = await t.createClinic();
    const [a, b] = [await receiver(), await receiver()];
    const endpointA = await registerEndpoint(t, clinic, a.url());
    const endpointB = await registerEndpoint(t, clinic, b.url());
    const payload = { medication_request_id: '11111111-1111-4111-8111-111111111111', status: 'pending' };
    const eventId = await emitEvent(t.ctx, clinic.clinicId, 'order.created', payload);
    await worker.drain();

    expect(a.received).toHaveLength(1);
    expect(b.received).toHaveLength(1);
    const got = a.received[0]!;
    const verified = WebhookReceiver.verify(endpointA.secret, got, time.clock());
    expect(verified).toEqual({ type: 'order.created', timestamp: expect.any(String), data: payload });
    expect(WebhookReceiver.verify(endpointB.secret, b.received[0]!, time.clock())).toEqual(verified);
    expect(() => WebhookReceiver.verify(endpointB.secret, got, time.clock())).toThrow('No matching signature found');
    expect(got.method).toBe('POST');
    expect(got.headers['webhook-id']).toBe(eventId);
    // Signed for the attempt's time, which is the injected clock's.
    expect(Number(got.headers['webhook-timestamp'])).toBe(Math.floor(time.now() / 1000));
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^PartnerFulfillmentAPI-Webhooks\//);

    const rows = await deliveriesOf(t.ctx, eventId);
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered']);
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatchObject({ attempt_number: 1, response_status: 200, response_body: 'ok', error: null });
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    const event = await t.ctx.db.selectFrom('outbox_events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow();
    expect(event.dispatched_at).not.toBeNull();
  });

  it('when the endpoint answers 500, 500 then 200, then the event arrives on the third attempt with the same webhook-id and body bytes, and is not sent again', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([
      { status: 500, body: 'boom' },
      { status: 500, body: 'boom again' },
      { status: 200, body: 'thanks' },
    ]);
    const { secret } = await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);

    const [delivery] = await settle(worker, t.ctx, time, eventId);
    expect(delivery).toMatchObject({
      status: 'delivered',
      attempt_count: 3,
      last_response_status: 200,
      last_error: null,
      next_attempt_at: null,
    });
    const got = r.received;
    expect(got.map((g) => g.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    for (const request of got) expect(WebhookReceiver.verify(secret, request, time.clock()).type).toBe('order.created');
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts.map((a) => [a.attempt_number, a.response_status, a.response_body])).toEqual([
      [1, 500, 'boom'],
      [2, 500, 'boom again'],
      [3, 200, 'thanks'],
    ]);

    // A day later a drain sends this endpoint a new event, and nothing more of the delivered one.
    time.advance(DAY);
    const control = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(r.received.map((g) => g.headers['webhook-id'])).toEqual([eventId, eventId, eventId, control]);
  });

  it('when the endpoint fails every attempt of the schedule, then the delivery is failed and not attempted again', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 503, body: 'x'.repeat(5000) }]);
    await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const [delivery] = await settle(worker, t.ctx, time, eventId);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempt_count: 3,
      last_response_status: 503,
      next_attempt_at: null,
      delivered_at: null,
    });
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts).toHaveLength(3);
    expect(attempts[0]!.response_body).toHaveLength(1024);
    expect(r.received).toHaveLength(3);

    // A day later a drain does reach this endpoint (with a new event), but not with the failed delivery.
    time.advance(DAY);
    const control = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(r.received.map((g) => g.headers['webhook-id'])).toEqual([eventId, eventId, eventId, control]);
    expect(await attemptsOf(t.ctx, eventId)).toHaveLength(3);
  });

  it('when the endpoint answers a redirect, then the attempt fails and the redirect is not followed', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 302, headers: { location: '/elsewhere' } }, { status: 200 }]);
    await registerEndpoint(t, clinic, r.url('/hook'));
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const [delivery] = await settle(worker, t.ctx, time, eventId);
    expect(delivery!.status).toBe('delivered');
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts.map((a) => a.response_status)).toEqual([302, 200]);
    expect(r.received.map((x) => x.path)).toEqual(['/hook', '/hook']);
  });

  it('when the endpoint cannot be reached, then the network error is recorded and the attempt retried', async () => {
    const clinic = await t.createClinic();
    const r = await receiver();
    const url = r.url();
    await r.stop();
    await registerEndpoint(t, clinic, url);
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const [delivery] = await settle(worker, t.ctx, time, eventId);
    expect(delivery!.status).toBe('failed');
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts).toHaveLength(3);
    expect(attempts[0]).toMatchObject({ response_status: null, response_body: null });
    expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
  });

  it('when the endpoint does not answer within the timeout, then the attempt is recorded as timed out and retried', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ hang: true }]);
    await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    // A worker of its own with a short timeout; the attempts wait for it, the retries for the fake clock.
    const sender = createHttpSender({ policy: urlPolicyOf(t.ctx.config), timeoutMs: 300 });
    const impatient = new WebhookWorker(t.ctx, { sender });
    try {
      const [delivery] = await settle(impatient, t.ctx, time, eventId);
      expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3, last_response_status: null });
    } finally {
      await impatient.stop();
      await sender.close();
    }
    expect(r.received).toHaveLength(3);
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts.map((a) => a.error)).toEqual(['timed out after 300 ms', 'timed out after 300 ms', 'timed out after 300 ms']);
    // The recorded duration covers the wait for the timeout (a lower bound: a loaded machine only lengthens it).
    for (const attempt of attempts) expect(attempt.duration_ms).toBeGreaterThanOrEqual(270);
  });

  it('when the endpoint answers 410 Gone, then it is disabled, its delivery failed, and later events are not sent to it', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 410 }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(r.received).toHaveLength(1);
    const listed = await t.partner(clinic.apiKey).get('/api/external/webhook');
    expect(listed.body.data[0]).toMatchObject({
      webhook_id: webhookId,
      status: 'disabled',
      disabled_reason: 'the endpoint answered 410 Gone',
    });

    const later = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    // The drain did fan the later event out, to no one.
    const event = await t.ctx.db.selectFrom('outbox_events').selectAll().where('id', '=', later).executeTakeFirstOrThrow();
    expect(event.dispatched_at).not.toBeNull();
    expect(await deliveriesOf(t.ctx, later)).toEqual([]);
    expect(r.received).toHaveLength(1);
  });

  it('when an endpoint was registered after the event, or belongs to another clinic, then it does not receive the event', async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const early = await receiver();
    const foreign = await receiver();
    await registerEndpoint(t, clinic, early.url());
    await registerEndpoint(t, other, foreign.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    // Registered a second after the event, but before the event is fanned out.
    time.advance(1000);
    const late = await receiver();
    await registerEndpoint(t, clinic, late.url());
    await worker.drain();

    expect(early.received.map((x) => x.headers['webhook-id'])).toEqual([eventId]);
    expect(late.received).toHaveLength(0);
    expect(foreign.received).toHaveLength(0);
    expect(await deliveriesOf(t.ctx, eventId)).toHaveLength(1);
  });
});

// A started worker, with a poll of an hour: whatever it does within a test, a wake-up or its own
// due-retry timer made it do.
describe.each(DIALECTS)('a started webhook worker on %s', (dialect) => {
  let t: TestApp;
  let worker: WebhookWorker;
  let r: WebhookReceiver;
  // Frozen unless the test moves it: a retry comes due only when the test says so.
  const time = fakeClock();
  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock, env: fastEnv() });
    worker = await startWorker(t);
    r = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await worker.stop();
    await r.stop();
    await t.close();
  });

  it('when an event is written, then the worker wakes at once and delivers it, without waiting for its poll', async () => {
    const clinic = await t.createClinic();
    await registerEndpoint(t, clinic, r.url());
    await worker.whenIdle();
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const [got] = await r.waitFor(1);
    expect(got!.headers['webhook-id']).toBe(eventId);
    await worker.whenIdle();
    expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'delivered', attempt_count: 1 });
  });

  it('when an attempt fails, then the worker makes the retry once it comes due, on its own timer', async () => {
    const clinic = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, clinic, r.url('/retry'));
    r.respondWith({ status: 500 }, { status: 200 });
    const ofThisEndpoint = (attempt: RecordedAttempt) => attempt.endpointId === webhookId;
    const firstAttempt = nextAttempt(worker, ofThisEndpoint);
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const first = await firstAttempt;
    expect(first).toMatchObject({ eventId, attemptNumber: 1, status: 'pending' });
    // It looked at the queue again after the attempt: the retry was not due yet.
    await worker.whenIdle();
    expect(r.received.filter((g) => g.path === '/retry')).toHaveLength(1);

    // No event and no poll wakes the worker now: the timer it set for the retry's due time does.
    const secondAttempt = nextAttempt(worker, ofThisEndpoint);
    time.set(Date.parse(first.nextAttemptAt!));
    expect(await secondAttempt).toMatchObject({ eventId, attemptNumber: 2, status: 'delivered' });
    expect(r.received.filter((g) => g.path === '/retry').map((g) => g.headers['webhook-id'])).toEqual([eventId, eventId]);
  });
});

describe.each(DIALECTS)('a slow webhook endpoint on %s', (dialect) => {
  let t: TestApp;
  let worker: WebhookWorker;
  let slow: WebhookReceiver;
  let healthy: WebhookReceiver;
  const gate = new Gate();
  beforeAll(async () => {
    // The slow endpoint answers when the test releases it, long before this timeout.
    t = await TestApp.start({ dialect, env: fastEnv({ WEBHOOK_TIMEOUT_MS: '60000' }) });
    // Fewer slots than slow deliveries: only the per-endpoint limit keeps a slot for the healthy endpoint.
    worker = await startWorker(t, { concurrency: 4 });
    slow = await WebhookReceiver.start([{ heldBy: gate }]);
    healthy = await WebhookReceiver.start();
  });
  afterAll(async () => {
    gate.release();
    await slow.stop();
    await healthy.stop();
    await worker.stop();
    await t.close();
  });

  it('when an endpoint is slow to answer, then a healthy endpoint is served and the API answers while its attempts are still in flight', async () => {
    const slowClinic = await t.createClinic();
    const healthyClinic = await t.createClinic();
    const slowEndpoint = await registerEndpoint(t, slowClinic, slow.url());
    await setEndpointLimits(t.ctx, slowEndpoint.webhookId, { max_in_flight: 2 });
    await registerEndpoint(t, healthyClinic, healthy.url());

    const slowEvents: string[] = [];
    for (let i = 0; i < 6; i++) slowEvents.push(await emitEvent(t.ctx, slowClinic.clinicId));
    await slow.waitFor(2);
    const healthyEvent = await emitEvent(t.ctx, healthyClinic.clinicId);
    const [got] = await healthy.waitFor(1);
    expect(got!.headers['webhook-id']).toBe(healthyEvent);
    // Meanwhile the slow endpoint holds two attempts, and the limit kept its other four back.
    expect(slow.pending).toBe(2);
    expect(slow.received).toHaveLength(2);

    expect((await t.partner(slowClinic.apiKey).get('/api/external/webhook')).status).toBe(200);
    expect(slow.pending).toBe(2);

    gate.release();
    const all = await slow.waitFor(6);
    expect(new Set(all.map((g) => g.headers['webhook-id']))).toEqual(new Set(slowEvents));
    await worker.whenIdle();
    for (const eventId of slowEvents)
      expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'delivered', attempt_count: 1 });
  });
});

describe.each(DIALECTS)('the real retry schedule on %s', (dialect) => {
  it('when the first attempt fails, then the second is scheduled and made 5 s later, within the ±10 % jitter', async () => {
    const time = fakeClock();
    const t = await TestApp.start({ dialect, clock: time.clock });
    const r = await WebhookReceiver.start([{ status: 500 }]);
    const worker = new WebhookWorker(t.ctx);
    try {
      expect(t.ctx.config.webhookRetryScheduleMs).toEqual([
        0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
      ]);
      const clinic = await t.createClinic();
      await registerEndpoint(t, clinic, r.url());
      const eventId = await emitEvent(t.ctx, clinic.clinicId);
      await worker.drain();
      const [delivery] = await deliveriesOf(t.ctx, eventId);
      expect(delivery).toMatchObject({
        status: 'pending',
        attempt_count: 1,
        last_response_status: 500,
        last_attempt_at: time.clock().toISOString(),
      });
      const due = Date.parse(delivery!.next_attempt_at!);
      const wait = due - Date.parse(delivery!.last_attempt_at!);
      expect(wait).toBeGreaterThanOrEqual(4500);
      expect(wait).toBeLessThanOrEqual(5500);

      // Not a millisecond early, and at its time.
      time.set(due - 1);
      await worker.drain();
      expect(r.received).toHaveLength(1);
      time.set(due);
      await worker.drain();
      expect(r.received).toHaveLength(2);
      expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'pending', attempt_count: 2 });
    } finally {
      await worker.stop();
      await r.stop();
      await t.close();
    }
  });
});

describe.each(DIALECTS)('recording attempts in batches on %s', (dialect) => {
  it('when 50 events are drained to an endpoint taking 10 at once, then their attempts are written in a handful of statements, not one each', async () => {
    /** INSERTs into the attempts table, and how many rows each wrote. */
    const inserts: number[] = [];
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        if (InsertQueryNode.is(args.node) && args.node.into?.table.identifier.name === 'webhook_delivery_attempts')
          inserts.push(args.node.values && ValuesNode.is(args.node.values) ? args.node.values.values.length : 0);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const t = await TestApp.start({ dialect, env: fastEnv() });
    const r = await WebhookReceiver.start();
    const worker = new WebhookWorker({ ...t.ctx, db: t.ctx.db.withPlugin(counting) });
    try {
      const clinic = await t.createClinic();
      await registerEndpoint(t, clinic, r.url());
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) ids.push(await emitEvent(t.ctx, clinic.clinicId));
      await worker.drain();
      expect(new Set(r.received.map((g) => g.headers['webhook-id']))).toEqual(new Set(ids));
      expect(inserts.reduce((a, b) => a + b, 0)).toBe(50);
      // A drain sends up to max_in_flight (10) at once and records them together: 5 batches.
      expect(inserts.length).toBeLessThanOrEqual(6);
    } finally {
      await worker.stop();
      await r.stop();
      await t.close();
    }
  });
});
