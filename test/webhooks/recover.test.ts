import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { applyRetryScheduleToWaiting } from '../../src/delivery/reschedule.service.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { Gate, WebhookReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.js';
import { deliveriesOf, emitEvent, fakeClock, registerEndpoint, startWorker } from './support.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const DAY = 24 * H;

/** Three attempts: at once, 5 s later, 5 min later; then the delivery has failed. */
const SCHEDULE = '0,5s,5m';

describe.each(DIALECTS)('webhook recovery after an outage on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse('2030-03-01T09:00:00.000Z'));
  let worker: WebhookWorker;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...script: Parameters<typeof WebhookReceiver.start>) => {
    const r = await WebhookReceiver.start(...script);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await TestApp.start({
      dialect,
      clock: time.clock,
      env: { WEBHOOK_RETRY_SCHEDULE: SCHEDULE, WEBHOOK_TIMEOUT_MS: '2000' },
    });
    // Driven by hand (drain) under the fake clock.
    worker = new WebhookWorker(t.ctx);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  /** Lets every attempt of the schedule fail: at once, after 5 s, after 5 min. */
  async function exhaustRetries(): Promise<void> {
    await worker.drain();
    time.advance(6 * S);
    await worker.drain();
    time.advance(6 * M);
    await worker.drain();
  }

  const status = async (eventId: string) => (await deliveriesOf(t.ctx, eventId))[0];
  const byEvent = (received: ReceivedRequest[], eventId: string) => received.filter((r) => r.headers['webhook-id'] === eventId);

  /**
   * A clinic whose receiver went down: one event delivered before the outage, two whose attempts all
   * failed, one waiting for its retry, and a failed test call (never retried).
   */
  async function outage() {
    const clinic = await t.createClinic();
    const r = await receiver();
    const { webhookId, secret } = await registerEndpoint(t, clinic, r.url());
    const delivered = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(await status(delivered)).toMatchObject({ status: 'delivered' });

    r.respondWith({ status: 503, body: 'down' });
    const failed = [await emitEvent(t.ctx, clinic.clinicId), await emitEvent(t.ctx, clinic.clinicId, 'order.cancelled')];
    await exhaustRetries();
    for (const id of failed) expect(await status(id)).toMatchObject({ status: 'failed', attempt_count: 3 });
    const waiting = await emitEvent(t.ctx, clinic.clinicId, 'order.fulfilled');
    await worker.drain();
    expect(await status(waiting)).toMatchObject({ status: 'pending', attempt_count: 1 });
    const test = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(test.body.data.delivered).toBe(false);
    return { clinic, r, webhookId, secret, delivered, failed, waiting, missed: [...failed, waiting] };
  }

  /** Every request of the missed events arrived once more after the recovery, each verifying. */
  function expectRecovered(r: WebhookReceiver, secret: string, missed: string[], before: number): void {
    const after = r.received.slice(before);
    expect(after.map((req) => req.headers['webhook-id']).sort()).toEqual([...missed].sort());
    for (const req of after)
      expect(WebhookReceiver.verify(secret, req, time.clock())).toMatchObject({ type: expect.any(String) });
  }

  async function auditRows(webhookId: string) {
    return t.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('resource_type', '=', 'webhook_endpoint')
      .where('resource_id', '=', webhookId)
      .where('action', '=', 'retry')
      .execute();
  }

  it('when the operator recovers an endpoint whose receiver is up again, then every failed or waiting delivery is sent at once, and nothing else', async () => {
    const o = await outage();
    o.r.respondWith({ status: 204 });
    const before = o.r.received.length;

    const res = await t.operator.post(`/api/admin/webhook-endpoints/${o.webhookId}/recover`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { scheduled: 3 }, message: expect.stringMatching(/^3 webhook deliveries/) });
    for (const id of o.missed)
      expect(await status(id)).toMatchObject({ status: 'pending', next_attempt_at: time.clock().toISOString() });

    await worker.drain(); // the clock has not moved: due now, not at the next retry
    for (const id of o.missed) expect(await status(id)).toMatchObject({ status: 'delivered', attempt_count: expect.any(Number) });
    expectRecovered(o.r, o.secret, o.missed, before);
    // The event delivered before the outage was not sent again, nor the test call.
    expect(byEvent(o.r.received, o.delivered)).toHaveLength(1);

    expect(await auditRows(o.webhookId)).toEqual([
      expect.objectContaining({ actor_type: 'operator', clinic_id: o.clinic.clinicId, request_id: expect.any(String) }),
    ]);
    // Nothing is left to recover.
    expect((await t.operator.post(`/api/admin/webhook-endpoints/${o.webhookId}/recover`, {})).body.data).toEqual({
      scheduled: 0,
    });
  });

  it('when a recovery is asked while the worker runs, then it is woken and the receiver gets everything within moments', async () => {
    const clinic = await t.createClinic();
    const r = await receiver();
    const { webhookId, secret } = await registerEndpoint(t, clinic, r.url());
    await r.stop(); // connection refused
    const missed = [await emitEvent(t.ctx, clinic.clinicId), await emitEvent(t.ctx, clinic.clinicId)];
    await exhaustRetries();
    await r.restart();

    const started = await startWorker(t);
    try {
      const res = await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`, {});
      expect(res.body.data).toEqual({ scheduled: 2 });
      const received = await r.waitFor(2);
      expectRecovered(r, secret, missed, received.length - 2);
      await started.whenIdle();
    } finally {
      await started.stop();
    }
    for (const id of missed) expect(await status(id)).toMatchObject({ status: 'delivered' });
  });

  it('when a delivery is in flight, then the recovery leaves it to its attempt and does not count it', async () => {
    const clinic = await t.createClinic();
    const gate = new Gate();
    const r = await receiver([{ status: 503 }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const failed = await emitEvent(t.ctx, clinic.clinicId);
    await exhaustRetries();
    r.respondWith({ status: 200, heldBy: gate });
    const inFlight = await emitEvent(t.ctx, clinic.clinicId, 'order.fulfilled');
    const draining = worker.drain();
    await r.waitFor(4); // three failed attempts, then the held one
    const leased = await status(inFlight);
    expect(leased!.claimed_until! > time.clock().toISOString()).toBe(true);

    const res = await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`);
    expect(res.body.data).toEqual({ scheduled: 1 });
    expect(await status(inFlight)).toMatchObject({ claimed_until: leased!.claimed_until, claim_token: leased!.claim_token });
    gate.release();
    await draining;
    await worker.drain();
    expect(await status(inFlight)).toMatchObject({ status: 'delivered', attempt_count: 1 });
    expect(await status(failed)).toMatchObject({ status: 'delivered', attempt_count: 4 });
  });

  it('when `since` is omitted, then deliveries of the last 24 hours are recovered; an explicit one reaches back up to 7 days', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 503 }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const created = time.now();
    const old = await emitEvent(t.ctx, clinic.clinicId);
    await exhaustRetries();
    time.advance(2 * DAY);
    const recent = await emitEvent(t.ctx, clinic.clinicId);
    await exhaustRetries();
    r.respondWith({ status: 200 });

    const res = await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`);
    expect(res.body.data).toEqual({ scheduled: 1 });
    await worker.drain();
    expect(await status(recent)).toMatchObject({ status: 'delivered' });
    expect(await status(old)).toMatchObject({ status: 'failed' });

    const since = new Date(created).toISOString();
    const partner = await t.partner(clinic.apiKey).post('/api/external/webhook/recover', {
      clinic_id: clinic.clinicId,
      webhook_id: webhookId,
      since,
    });
    expect(partner.body.data).toEqual({ scheduled: 1 });
    await worker.drain();
    expect(await status(old)).toMatchObject({ status: 'delivered' });

    // Exactly 7 days back is allowed; an offset other than Z is understood.
    const sevenDays = new Date(time.now() - 7 * DAY).toISOString();
    expect((await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`, { since: sevenDays })).status).toBe(200);
    const withOffset = new Date(time.now() - H).toISOString().replace('Z', '+00:00');
    expect((await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`, { since: withOffset })).status).toBe(200);
  });

  it('when `since` is older than 7 days, in the future or not a date-time, then both calls answer 400 naming `since`', async () => {
    const clinic = await t.createClinic();
    const r = await receiver();
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const cases: [unknown, RegExp][] = [
      [new Date(time.now() - 7 * DAY - S).toISOString(), /at most 7 days ago/],
      [new Date(time.now() + M).toISOString(), /must not be in the future/],
      ['yesterday', /ISO 8601 date-time/],
      ['2030-03-01T09:00:00', /ISO 8601 date-time/], // no offset: ambiguous
      [1_700_000_000, /must be a string/],
      ['', /ISO 8601 date-time/],
    ];
    for (const [since, message] of cases) {
      const admin = await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`, { since });
      const partner = await t
        .partner(clinic.apiKey)
        .post('/api/external/webhook/recover', { clinic_id: clinic.clinicId, webhook_id: webhookId, since });
      for (const res of [admin, partner]) {
        expect(res.status, JSON.stringify(since)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(Object.keys(res.body.error.details)).toEqual(['since']);
        expect(res.body.error.details.since).toMatch(message);
      }
    }
    expect(await auditRows(webhookId)).toEqual([]);
  });

  it('when a partner recovers its endpoint, then its deliveries are sent; another clinic’s endpoint is not found and untouched', async () => {
    const o = await outage();
    const other = await outage();
    o.r.respondWith({ status: 200 });
    other.r.respondWith({ status: 200 });
    const partner = t.partner(o.clinic.apiKey);

    const foreign = await partner.post('/api/external/webhook/recover', {
      clinic_id: o.clinic.clinicId,
      webhook_id: other.webhookId,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Webhook not found' });
    const unknown = await partner.post('/api/external/webhook/recover', {
      clinic_id: o.clinic.clinicId,
      webhook_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({ ...foreign.body.error, request_id: unknown.body.error.request_id });
    const otherClinic = await partner.post('/api/external/webhook/recover', {
      clinic_id: other.clinic.clinicId,
      webhook_id: other.webhookId,
    });
    expect(otherClinic.status).toBe(403);
    for (const id of other.failed) expect(await status(id)).toMatchObject({ status: 'failed' });
    expect(await auditRows(other.webhookId)).toEqual([]);

    const before = o.r.received.length;
    const res = await partner.post('/api/external/webhook/recover', { clinic_id: o.clinic.clinicId, webhook_id: o.webhookId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { scheduled: 3 }, message: expect.any(String) });
    await worker.drain();
    expectRecovered(o.r, o.secret, o.missed, before);
    expect(byEvent(o.r.received, o.delivered)).toHaveLength(1);
    // The other clinic's receiver got nothing more.
    for (const id of other.failed) expect(await status(id)).toMatchObject({ status: 'failed' });
    expect(await auditRows(o.webhookId)).toEqual([
      expect.objectContaining({ actor_type: 'partner', actor_id: o.clinic.apiKeyId, clinic_id: o.clinic.clinicId }),
    ]);
  });

  it('when a partner repeats a recovery with its Idempotency-Key, then the replay answers the same count and schedules nothing', async () => {
    const o = await outage();
    o.r.respondWith({ status: 200 });
    const send = (key: string) =>
      t.request('POST', '/api/external/webhook/recover', {
        headers: { 'x-api-key': o.clinic.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
        body: { clinic_id: o.clinic.clinicId, webhook_id: o.webhookId },
      });
    const first = await send('recover-1');
    expect(first.body.data).toEqual({ scheduled: 3 });
    await worker.drain();
    const received = o.r.received.length;

    const replay = await send('recover-1');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const fresh = await send('recover-2');
    expect(fresh.body.data).toEqual({ scheduled: 0 });
    await worker.drain();
    expect(o.r.received).toHaveLength(received);
    expect(await auditRows(o.webhookId)).toHaveLength(2);
  });

  it('when the endpoint is disabled, then recovery answers 409 (re-enable first); when deleted, 404', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 410 }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const gone = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(await status(gone)).toMatchObject({ status: 'failed' });

    const admin = await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`);
    expect(admin.status).toBe(409);
    expect(admin.body.error.message).toMatch(/re-enable it first/);
    const ref = { clinic_id: clinic.clinicId, webhook_id: webhookId };
    const partner = await t.partner(clinic.apiKey).post('/api/external/webhook/recover', ref);
    expect(partner.status).toBe(409);
    expect(partner.body.error.message).toMatch(/ask the pharmacy to re-enable it/);
    expect(await status(gone)).toMatchObject({ status: 'failed' });

    expect((await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/enable`)).status).toBe(200);
    r.respondWith({ status: 200 });
    expect((await t.partner(clinic.apiKey).post('/api/external/webhook/recover', ref)).body.data).toEqual({ scheduled: 1 });
    await worker.drain();
    expect(await status(gone)).toMatchObject({ status: 'delivered' });

    expect((await t.partner(clinic.apiKey).delete('/api/external/webhook', ref)).status).toBe(200);
    expect((await t.partner(clinic.apiKey).post('/api/external/webhook/recover', ref)).status).toBe(404);
    expect((await t.operator.post(`/api/admin/webhook-endpoints/${webhookId}/recover`)).status).toBe(404);
  });

  it('when the recovery calls are malformed or unauthenticated, then they are refused before any work', async () => {
    const clinic: TestClinic = await t.createClinic();
    expect((await t.request('POST', '/api/admin/webhook-endpoints/00000000-0000-4000-8000-000000000000/recover')).status).toBe(
      401,
    );
    const badId = await t.operator.post('/api/admin/webhook-endpoints/not-a-uuid/recover');
    expect(badId.status).toBe(400);
    expect(Object.keys(badId.body.error.details)).toEqual(['webhookId']);
    const extra = await t.operator.post('/api/admin/webhook-endpoints/00000000-0000-4000-8000-000000000000/recover', {
      from: 'x',
    });
    expect(extra.status).toBe(400);
    const missing = await t.partner(clinic.apiKey).post('/api/external/webhook/recover', { clinic_id: clinic.clinicId });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual({ webhook_id: 'is required' });
  });
});

describe.each(DIALECTS)('a changed WEBHOOK_RETRY_SCHEDULE on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse('2030-04-01T09:00:00.000Z'));
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock, env: { WEBHOOK_RETRY_SCHEDULE: '0,1h', WEBHOOK_TIMEOUT_MS: '2000' } });
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => t.close());

  /** The worker of a process restarted on the same database with another WEBHOOK_RETRY_SCHEDULE. */
  const withSchedule = (schedule: number[]): AppContext => ({
    ...t.ctx,
    config: { ...t.ctx.config, webhookRetryScheduleMs: schedule },
  });
  const restartedWith = (schedule: number[]): WebhookWorker => new WebhookWorker(withSchedule(schedule));

  async function waitingDelivery() {
    const clinic = await t.createClinic();
    const r = await WebhookReceiver.start([{ status: 503 }]);
    receivers.push(r);
    await registerEndpoint(t, clinic, r.url());
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const first = new WebhookWorker(t.ctx);
    await first.drain();
    await first.stop();
    const [row] = await deliveriesOf(t.ctx, eventId);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 1 });
    return { clinic, r, eventId, row: row! };
  }

  it('when a delivery waits under 0,1h and the worker restarts with 0,5s, then it is attempted 5 s after its failure', async () => {
    const { r, eventId, row } = await waitingDelivery();
    const failedAt = Date.parse(row.last_attempt_at!);
    expect(Date.parse(row.next_attempt_at!) - failedAt).toBeGreaterThanOrEqual(0.9 * H);
    r.respondWith({ status: 200 });

    const restarted = restartedWith([0, 5 * S]);
    await restarted.drain(); // at the failure's time: moved, not yet due
    const [moved] = await deliveriesOf(t.ctx, eventId);
    expect(moved).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      next_attempt_at: new Date(failedAt + 5 * S).toISOString(),
    });
    expect(r.received).toHaveLength(1);

    time.set(failedAt + 5 * S);
    await restarted.drain();
    await restarted.stop();
    expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'delivered', attempt_count: 2 });
    expect(r.received).toHaveLength(2);
  });

  it('when the schedule is lengthened, then waiting deliveries wait for the new delay; when unchanged, their jittered time is kept', async () => {
    const { eventId, row } = await waitingDelivery();
    const failedAt = Date.parse(row.last_attempt_at!);

    const same = restartedWith([0, H]);
    await same.drain();
    await same.stop();
    expect((await deliveriesOf(t.ctx, eventId))[0]!.next_attempt_at).toBe(row.next_attempt_at);

    const longer = restartedWith([0, 3 * H]);
    await longer.drain();
    await longer.stop();
    expect((await deliveriesOf(t.ctx, eventId))[0]!.next_attempt_at).toBe(new Date(failedAt + 3 * H).toISOString());
  });

  it('when the schedule is shortened below the attempts made, then the delivery gets its last delay and fails if that attempt fails', async () => {
    const clinic = await t.createClinic();
    const r = await WebhookReceiver.start([{ status: 503 }]);
    receivers.push(r);
    await registerEndpoint(t, clinic, r.url());
    // Two attempts under a longer schedule, the third still to come.
    const longer = restartedWith([0, S, 2 * H]);
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await longer.drain();
    time.advance(2 * S);
    await longer.drain();
    await longer.stop();
    const [row] = await deliveriesOf(t.ctx, eventId);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 2 });

    const shorter = restartedWith([0, 10 * S]);
    await shorter.drain();
    expect((await deliveriesOf(t.ctx, eventId))[0]!.next_attempt_at).toBe(
      new Date(Date.parse(row!.last_attempt_at!) + 10 * S).toISOString(),
    );
    time.advance(10 * S);
    await shorter.drain();
    await shorter.stop();
    expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'failed', attempt_count: 3 });
  });

  it('when a waiting delivery was made due now by a recovery, then a restart with another schedule leaves it due now', async () => {
    const { clinic, eventId } = await waitingDelivery();
    const [webhook] = (await t.partner(clinic.apiKey).get('/api/external/webhook')).body.data;
    const res = await t.operator.post(`/api/admin/webhook-endpoints/${webhook.webhook_id}/recover`);
    expect(res.body.data).toEqual({ scheduled: 1 });
    const due = time.clock().toISOString();

    // The schedule step alone (a worker's drain would go on to attempt it, being due).
    await applyRetryScheduleToWaiting(withSchedule([0, 5 * H]));
    expect((await deliveriesOf(t.ctx, eventId))[0]!.next_attempt_at).toBe(due);
  });
});
