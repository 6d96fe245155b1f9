import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookWorker } from '../../src/webhooks/delivery-worker.js';
import { dispatchOutbox } from '../../src/webhooks/dispatcher.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { attemptsOf, deliveriesOf, deliveryReaching, emitEvent, eventually, fastEnv, registerEndpoint, startWorker } from './support.js';

describe.each(DIALECTS)('webhook delivery on %s', (dialect) => {
  let t: TestApp;
  let worker: WebhookWorker;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...script: Parameters<typeof WebhookReceiver.start>) => {
    const r = await WebhookReceiver.start(...script);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: fastEnv() });
    worker = await startWorker(t);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it('when an event is written, then every endpoint of its clinic receives it promptly, signed and verifiable with standardwebhooks', async () => {
    const clinic = await t.createClinic();
    const [a, b] = [await receiver(), await receiver()];
    const endpointA = await registerEndpoint(t, clinic, a.url());
    const endpointB = await registerEndpoint(t, clinic, b.url());
    const started = Date.now();
    const payload = { medication_request_id: '11111111-1111-4111-8111-111111111111', status: 'pending' };
    const eventId = await emitEvent(t.ctx, clinic.clinicId, 'order.created', payload);

    const [got] = await a.waitFor(1, 1000);
    expect(got!.receivedAt - started).toBeLessThan(1000);
    await b.waitFor(1, 1000);
    const verified = WebhookReceiver.verify(endpointA.secret, got!);
    expect(verified).toEqual({ type: 'order.created', timestamp: expect.any(String), data: payload });
    expect(WebhookReceiver.verify(endpointB.secret, b.received[0]!)).toEqual(verified);
    expect(() => WebhookReceiver.verify(endpointB.secret, got!)).toThrow();
    expect(got!.method).toBe('POST');
    expect(got!.headers['webhook-id']).toBe(eventId);
    expect(Number(got!.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
    expect(got!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toMatch(/^PartnerFulfillmentAPI-Webhooks\//);

    const rows = await deliveryReaching(t.ctx, eventId, ['delivered']);
    expect(rows).toHaveLength(2);
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatchObject({ attempt_number: 1, response_status: 200, response_body: 'ok', error: null });
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    const event = await t.ctx.db.selectFrom('outbox_events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow();
    expect(event.dispatched_at).not.toBeNull();
  });

  it('when the endpoint answers 500, 500 then 200, then the event arrives on the third attempt with the same webhook-id and body bytes', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 500, body: 'boom' }, { status: 500, body: 'boom again' }, { status: 200, body: 'thanks' }]);
    const { secret } = await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);

    const got = await r.waitFor(3, 3000);
    expect(got.map((g) => g.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    for (const request of got) expect(WebhookReceiver.verify(secret, request).type).toBe('order.created');

    const [delivery] = await deliveryReaching(t.ctx, eventId, ['delivered']);
    expect(delivery).toMatchObject({ attempt_count: 3, last_response_status: 200, last_error: null, next_attempt_at: null });
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts.map((a) => [a.attempt_number, a.response_status, a.response_body])).toEqual([
      [1, 500, 'boom'],
      [2, 500, 'boom again'],
      [3, 200, 'thanks'],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(r.received).toHaveLength(3);
  });

  it('when the endpoint fails every attempt of the schedule, then the delivery is failed and not attempted again', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 503, body: 'x'.repeat(5000) }]);
    await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const [delivery] = await deliveryReaching(t.ctx, eventId, ['failed']);
    expect(delivery).toMatchObject({ attempt_count: 3, last_response_status: 503, next_attempt_at: null, delivered_at: null });
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts).toHaveLength(3);
    expect(attempts[0]!.response_body).toHaveLength(1024);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toHaveLength(3);
  });

  it('when the endpoint answers a redirect, then the attempt fails and the redirect is not followed', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 302, headers: { location: '/elsewhere' } }, { status: 200 }]);
    await registerEndpoint(t, clinic, r.url('/hook'));
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await deliveryReaching(t.ctx, eventId, ['delivered']);
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
    await deliveryReaching(t.ctx, eventId, ['failed']);
    const attempts = await attemptsOf(t.ctx, eventId);
    expect(attempts).toHaveLength(3);
    expect(attempts[0]).toMatchObject({ response_status: null, response_body: null });
    expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
  });

  it('when the endpoint answers 410 Gone, then it is disabled, its delivery failed, and later events are not sent to it', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 410 }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await deliveryReaching(t.ctx, eventId, ['failed']);
    expect(r.received).toHaveLength(1);
    const listed = await t.partner(clinic.apiKey).get('/api/external/webhook');
    expect(listed.body.data[0]).toMatchObject({ webhook_id: webhookId, status: 'disabled', disabled_reason: 'the endpoint answered 410 Gone' });
    const later = await emitEvent(t.ctx, clinic.clinicId);
    await dispatchOutbox(t.ctx);
    expect(await deliveriesOf(t.ctx, later)).toEqual([]);
  });

  it('when an endpoint was registered after the event, or belongs to another clinic, then it does not receive the event', async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const early = await receiver();
    const foreign = await receiver();
    await registerEndpoint(t, clinic, early.url());
    await registerEndpoint(t, other, foreign.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await early.waitFor(1, 1000);
    const late = await receiver();
    await registerEndpoint(t, clinic, late.url());
    await dispatchOutbox(t.ctx);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(late.received).toHaveLength(0);
    expect(foreign.received).toHaveLength(0);
    expect(await deliveriesOf(t.ctx, eventId)).toHaveLength(1);
  });
});

describe.each(DIALECTS)('a slow webhook endpoint on %s', (dialect) => {
  let t: TestApp;
  let worker: WebhookWorker;
  let slow: WebhookReceiver;
  let healthy: WebhookReceiver;
  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: fastEnv({ WEBHOOK_TIMEOUT_MS: '400' }) });
    // Fewer slots than slow deliveries: only the per-endpoint limit keeps a slot for the healthy endpoint.
    worker = await startWorker(t, { concurrency: 4, perEndpointConcurrency: 2 });
    slow = await WebhookReceiver.start([{ hang: true }]);
    healthy = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await slow.stop();
    await healthy.stop();
    await worker.stop();
    await t.close();
  });

  it('when an endpoint times out, then its attempts are retried and a healthy endpoint and the API are not delayed', async () => {
    const slowClinic = await t.createClinic();
    const healthyClinic = await t.createClinic();
    await registerEndpoint(t, slowClinic, slow.url());
    await registerEndpoint(t, healthyClinic, healthy.url());

    const slowEvents = [];
    for (let i = 0; i < 6; i++) slowEvents.push(await emitEvent(t.ctx, slowClinic.clinicId));
    await slow.waitFor(2, 1000);
    const started = Date.now();
    const healthyEvent = await emitEvent(t.ctx, healthyClinic.clinicId);
    const [got] = await healthy.waitFor(1, 1000);
    expect(got!.receivedAt - started).toBeLessThan(300);
    expect(got!.headers['webhook-id']).toBe(healthyEvent);
    const apiStarted = Date.now();
    expect((await t.partner(slowClinic.apiKey).get('/api/external/webhook')).status).toBe(200);
    expect(Date.now() - apiStarted).toBeLessThan(300);

    const [delivery] = await deliveryReaching(t.ctx, slowEvents[0]!, ['failed'], 10_000);
    expect(delivery!.attempt_count).toBe(3);
    const attempts = await attemptsOf(t.ctx, slowEvents[0]!);
    expect(attempts.map((a) => a.error)).toEqual(['timed out after 400 ms', 'timed out after 400 ms', 'timed out after 400 ms']);
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(380);
  });
});

describe.each(DIALECTS)('the real retry schedule on %s', (dialect) => {
  it('when the first attempt fails, then the second is scheduled 5 s later, within the ±10 % jitter', async () => {
    const t = await TestApp.start({ dialect });
    const r = await WebhookReceiver.start([{ status: 500 }]);
    const worker = await startWorker(t);
    try {
      expect(t.ctx.config.webhookRetryScheduleMs).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
      const clinic = await t.createClinic();
      await registerEndpoint(t, clinic, r.url());
      const eventId = await emitEvent(t.ctx, clinic.clinicId);
      await r.waitFor(1, 1000);
      const delivery = await eventually(async () => (await deliveriesOf(t.ctx, eventId)).find((d) => d.attempt_count === 1));
      expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1, last_response_status: 500 });
      const wait = Date.parse(delivery.next_attempt_at!) - Date.parse(delivery.last_attempt_at!);
      expect(wait).toBeGreaterThanOrEqual(4500);
      expect(wait).toBeLessThanOrEqual(5500);
      expect(r.received).toHaveLength(1);
    } finally {
      await worker.stop();
      await r.stop();
      await t.close();
    }
  });
});
