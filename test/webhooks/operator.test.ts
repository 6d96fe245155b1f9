import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesOf, emitEvent, registerEndpoint } from './support.js';

const DAY = 24 * 60 * 60 * 1000;

/** A clock the test moves by hand. */
function fakeClock(start = Date.parse('2026-02-01T09:00:00.000Z')) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe.each(DIALECTS)('operator webhook tools on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock();
  let worker: WebhookWorker;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...script: Parameters<typeof WebhookReceiver.start>) => {
    const r = await WebhookReceiver.start(...script);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    // Two attempts a minute apart; the worker is driven by hand (drain) under the fake clock.
    t = await TestApp.start({ dialect, clock: time.clock, env: { WEBHOOK_RETRY_SCHEDULE: '0,1m', WEBHOOK_TIMEOUT_MS: '2000' } });
    worker = new WebhookWorker(t.ctx);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it('when deliveries are listed, then they come newest first, filtered, a page at a time with a cursor', async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, clinic, 'https://partner.example.com/a');
    await registerEndpoint(t, other, 'https://partner.example.com/b');
    const ids: string[] = [];
    for (const type of ['order.created', 'order.fulfilled', 'order.created'] as const) {
      ids.push(await emitEvent(t.ctx, clinic.clinicId, type));
      time.advance(1000);
      await dispatchOutbox(t.ctx);
    }
    await emitEvent(t.ctx, other.clinicId);
    await dispatchOutbox(t.ctx);

    const page1 = await t.operator.get(`/api/admin/webhook-deliveries?clinic_id=${clinic.clinicId}&limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.items.map((d: any) => d.event_id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.data.items[0]).toEqual({
      delivery_id: expect.any(String),
      event_id: ids[2],
      event_type: 'order.created',
      clinic_id: clinic.clinicId,
      webhook_id: webhookId,
      webhook_url: 'https://partner.example.com/a',
      medication_request_id: '00000000-0000-4000-8000-000000000001',
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: expect.any(String),
      last_attempt_at: null,
      last_response_status: null,
      last_error: null,
      delivered_at: null,
      created_at: expect.any(String),
    });
    const page2 = await t.operator.get(
      `/api/admin/webhook-deliveries?clinic_id=${clinic.clinicId}&limit=2&cursor=${page1.body.data.next_cursor}`,
    );
    expect(page2.body.data.items.map((d: any) => d.event_id)).toEqual([ids[0]]);
    expect(page2.body.data.next_cursor).toBeNull();

    const fulfilled = await t.operator.get(
      `/api/admin/webhook-deliveries?clinic_id=${clinic.clinicId}&event_type=order.fulfilled&status=pending`,
    );
    expect(fulfilled.body.data.items.map((d: any) => d.event_id)).toEqual([ids[1]]);
    const byEndpoint = await t.operator.get(`/api/admin/webhook-deliveries?webhook_id=${webhookId}`);
    expect(byEndpoint.body.data.items).toHaveLength(3);
    const delivered = await t.operator.get(`/api/admin/webhook-deliveries?clinic_id=${clinic.clinicId}&status=delivered`);
    expect(delivered.body.data.items).toEqual([]);

    const badCursor = await t.operator.get('/api/admin/webhook-deliveries?cursor=garbage');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.details).toEqual({
      cursor: 'is not a cursor this API returned (pass next_cursor from the previous page)',
    });
    const badStatus = await t.operator.get('/api/admin/webhook-deliveries?status=lost');
    expect(badStatus.status).toBe(400);
  });

  it('when endpoints are listed, then they come newest first, filtered, a page at a time with a cursor', async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const ids: string[] = [];
    for (const path of ['a', 'b', 'c']) {
      ids.push((await registerEndpoint(t, clinic, `https://partner.example.com/${path}`)).webhookId);
      time.advance(1000);
    }
    await registerEndpoint(t, other, 'https://partner.example.com/d');

    const page1 = await t.operator.get(`/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}&status=active&limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.endpoints.map((e: any) => e.webhook_id)).toEqual([ids[2], ids[1]]);
    const page2 = await t.operator.get(
      `/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}&status=active&limit=2&cursor=${page1.body.data.next_cursor}`,
    );
    expect(page2.body.data).toEqual({ endpoints: [expect.objectContaining({ webhook_id: ids[0] })], next_cursor: null });
    const disabled = await t.operator.get(`/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}&status=disabled`);
    expect(disabled.body.data).toEqual({ endpoints: [], next_cursor: null });

    const badCursor = await t.operator.get('/api/admin/webhook-endpoints?cursor=garbage');
    expect(badCursor.status).toBe(400);
    expect(Object.keys(badCursor.body.error.details)).toEqual(['cursor']);
    expect((await t.operator.get('/api/admin/webhook-endpoints?limit=101')).status).toBe(400);
  });

  it('when the operator has no token, then the delivery log answers 401', async () => {
    const res = await t.request('GET', '/api/admin/webhook-deliveries');
    expect(res.status).toBe(401);
    expect((await t.request('POST', '/api/admin/webhook-endpoints/00000000-0000-4000-8000-000000000000/enable')).status).toBe(
      401,
    );
  });

  it('when a failed delivery is retried, then it is delivered again now, and the detail shows every attempt', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 500, body: 'nope' }]);
    await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    time.advance(70_000); // past the second attempt (1 min ± 10 %)
    await worker.drain();
    const [failed] = await deliveriesOf(t.ctx, eventId);
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 2 });

    r.respondWith({ status: 200, body: 'got it' });
    const retry = await t.operator.post(`/api/admin/webhook-deliveries/${failed!.id}/retry`);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({
      delivery_id: failed!.id,
      status: 'pending',
      next_attempt_at: time.clock().toISOString(),
    });
    await worker.drain();

    const detail = await t.operator.get(`/api/admin/webhook-deliveries/${failed!.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({
      status: 'delivered',
      attempt_count: 3,
      last_response_status: 200,
      delivered_at: expect.any(String),
    });
    expect(JSON.parse(detail.body.data.body)).toMatchObject({ type: 'order.created' });
    expect(detail.body.data.attempts.map((a: any) => [a.attempt_number, a.response_status, a.response_body])).toEqual([
      [1, 500, 'nope'],
      [2, 500, 'nope'],
      [3, 200, 'got it'],
    ]);
    expect(r.received.map((x) => x.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);

    const replay = await t.operator.post(`/api/admin/webhook-deliveries/${failed!.id}/retry`);
    expect(replay.status).toBe(200);
    await worker.drain();
    expect(r.received).toHaveLength(4);
    expect((await t.operator.post('/api/admin/webhook-deliveries/00000000-0000-4000-8000-000000000000/retry')).status).toBe(404);

    const webhookId = (await deliveriesOf(t.ctx, eventId))[0]!.endpoint_id;
    await t.partner(clinic.apiKey).delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    const afterDelete = await t.operator.post(`/api/admin/webhook-deliveries/${failed!.id}/retry`);
    expect(afterDelete.status).toBe(409);
    expect(afterDelete.body.error.message).toBe('The webhook endpoint of this delivery has been deleted');
    expect((await t.operator.get('/api/admin/webhook-deliveries/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('when an endpoint has failed every attempt for 5 days, then it is disabled and its pending deliveries fail; the operator re-enables it and redelivers', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 503 }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const first = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    const failingSince = time.clock().toISOString();
    time.advance(4 * DAY);
    const second = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    let endpoint = (await t.operator.get(`/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}`)).body.data.endpoints[0];
    expect(endpoint).toMatchObject({ webhook_id: webhookId, status: 'active', failing_since: failingSince });

    time.advance(DAY);
    const third = await emitEvent(t.ctx, clinic.clinicId);
    await dispatchOutbox(t.ctx);
    await worker.drain();

    endpoint = (await t.operator.get(`/api/admin/webhook-endpoints?status=disabled`)).body.data.endpoints.find(
      (e: any) => e.webhook_id === webhookId,
    );
    expect(endpoint).toMatchObject({
      status: 'disabled',
      disabled_at: time.clock().toISOString(),
      disabled_reason: `every attempt has failed since ${failingSince}`,
    });
    const partnerView = await t.partner(clinic.apiKey).get('/api/external/webhook');
    expect(partnerView.body.data[0]).toMatchObject({ status: 'disabled' });
    for (const eventId of [first, second, third]) expect((await deliveriesOf(t.ctx, eventId))[0]!.status).toBe('failed');

    // The partner can still check it with the test call.
    r.respondWith({ status: 200 });
    const check = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(check.body.data).toMatchObject({ delivered: true, status_code: 200 });
    r.respondWith({ status: 503 });
    const received = r.received.length;

    // Disabled: new events are not sent to it, and retries are refused until it is enabled.
    const whileDisabled = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(await deliveriesOf(t.ctx, whileDisabled)).toEqual([]);
    const [failedDelivery] = await deliveriesOf(t.ctx, third);
    const refused = await t.operator.post(`/api/admin/webhook-deliveries/${failedDelivery!.id}/retry`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/disabled; enable it first/);
    expect(r.received.length).toBe(received);

    r.respondWith({ status: 200 });
    const enabled = await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/enable?redeliver_failed=true`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({
      webhook_id: webhookId,
      status: 'active',
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
      redelivered: 3,
    });
    await worker.drain();
    for (const eventId of [first, second, third]) expect((await deliveriesOf(t.ctx, eventId))[0]!.status).toBe('delivered');
    const later = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect((await deliveriesOf(t.ctx, later))[0]!.status).toBe('delivered');
    expect((await t.operator.post('/api/admin/webhook-endpoints/00000000-0000-4000-8000-000000000000/enable')).status).toBe(404);
  });

  it('when an endpoint succeeds once in between, then its failure streak starts again and it is not disabled', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 500 }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    time.advance(2 * DAY);
    r.respondWith({ status: 200 });
    await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    time.advance(3.5 * DAY);
    r.respondWith({ status: 500 });
    await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    const endpoint = (await t.operator.get(`/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}`)).body.data.endpoints[0];
    expect(endpoint).toMatchObject({ webhook_id: webhookId, status: 'active', failing_since: time.clock().toISOString() });
  });
});
