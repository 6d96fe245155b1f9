import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runChange } from '../../src/changes/run-change.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { WebhookReceiver, type ScriptedResponse } from '../helpers/webhook-receiver.js';
import { attemptsOf, deliveriesOf, emitEvent, fakeClock, registerEndpoint, setEndpointLimits } from './support.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Receivers that push back (issue 18, item 3) and the partner's per-second limit (item 2), driven
 * by hand under a fake clock: `drain()` attempts everything that may go now, so "nothing was sent
 * before the pause ended" is a drain at the last millisecond of the pause, then one at its end.
 * The schedule's steps (5 s, then 10 min) are shorter than every pause tested, except where said.
 */
describe.each(DIALECTS)('receivers that push back on %s', (dialect) => {
  let t: TestApp;
  let worker: WebhookWorker;
  const time = fakeClock();
  const receivers: WebhookReceiver[] = [];

  const setUp = async (...script: ScriptedResponse[]) => {
    const r = await WebhookReceiver.start(script);
    receivers.push(r);
    const clinic = await t.createClinic();
    const endpoint = await registerEndpoint(t, clinic, r.url());
    return { r, clinic, endpoint };
  };
  const endpointRow = (id: string) =>
    t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** Drains at `at` (ms after now) and returns how many requests `r` has received in all. */
  const drainAt = async (start: number, at: number, r: WebhookReceiver) => {
    time.set(start + at);
    await worker.drain();
    return r.received.length;
  };

  beforeAll(async () => {
    t = await TestApp.start({
      dialect,
      clock: time.clock,
      env: { WEBHOOK_RETRY_SCHEDULE: '0,5s,10m,10m', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    worker = new WebhookWorker(t.ctx);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it('when a receiver answers 429 with Retry-After: 20, then nothing more goes to that endpoint for 20 s, another endpoint is not slowed, and the endpoint is not held failing', async () => {
    const { r, clinic, endpoint } = await setUp({ status: 429, headers: { 'retry-after': '20' } }, { status: 200 });
    const other = await setUp({ status: 200 });
    const start = time.now();
    const first = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(r.received).toHaveLength(1);

    // A second event of the throttled endpoint waits too; the other endpoint's goes at once.
    const second = await emitEvent(t.ctx, clinic.clinicId);
    const elsewhere = await emitEvent(t.ctx, other.clinic.clinicId);
    expect(await drainAt(start, 20 * SECOND - 1, r)).toBe(1);
    expect(other.r.received.map((g) => g.headers['webhook-id'])).toEqual([elsewhere]);

    expect(await drainAt(start, 20 * SECOND, r)).toBe(3);
    expect(new Set(r.received.slice(1).map((g) => g.headers['webhook-id']))).toEqual(new Set([first, second]));
    const [attempt] = await attemptsOf(t.ctx, first);
    expect(attempt).toMatchObject({ response_status: 429, throttled: 1 });
    expect(await endpointRow(endpoint.webhookId)).toMatchObject({ status: 'active', failing_since: null });
    expect((await deliveriesOf(t.ctx, first))[0]).toMatchObject({ status: 'delivered', attempt_count: 2 });
  });

  it('when a receiver answers 429 without Retry-After, then its endpoint is held for 60 s', async () => {
    const { r, clinic } = await setUp({ status: 429 }, { status: 200 });
    const start = time.now();
    await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(await drainAt(start, MINUTE - 1, r)).toBe(1);
    expect(await drainAt(start, MINUTE, r)).toBe(2);
  });

  it.each([
    ['garbage', 'soon'],
    ['negative', '-5'],
    ['a float', '1.5'],
    ['an exponent', '1e3'],
    ['a date without its zone', 'Wed, 21 Oct 2015 07:28:00'],
  ])('when a 429 carries a Retry-After that is %s, then it is treated as absent (60 s)', async (_kind, value) => {
    const { r, clinic } = await setUp({ status: 429, headers: { 'retry-after': value } }, { status: 200 });
    const start = time.now();
    await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(await drainAt(start, MINUTE - 1, r)).toBe(1);
    expect(await drainAt(start, MINUTE, r)).toBe(2);
  });

  it('when a Retry-After asks for years, then the endpoint is held for an hour at most', async () => {
    const { r, clinic, endpoint } = await setUp({ status: 503, headers: { 'retry-after': '99999999' } }, { status: 200 });
    const start = time.now();
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect((await endpointRow(endpoint.webhookId)).paused_until).toBe(new Date(start + HOUR).toISOString());
    expect((await deliveriesOf(t.ctx, eventId))[0]?.next_attempt_at).toBe(new Date(start + HOUR).toISOString());
    expect(await drainAt(start, HOUR - 1, r)).toBe(1);
    expect(await drainAt(start, HOUR, r)).toBe(2);
  });

  it('when a 503 carries Retry-After as an HTTP date, then the endpoint is held until that date', async () => {
    // An HTTP date has whole seconds: start on one.
    time.set(Math.ceil(time.now() / SECOND) * SECOND);
    const start = time.now();
    const until = new Date(start + 90 * SECOND);
    const { r, clinic } = await setUp({ status: 503, headers: { 'retry-after': until.toUTCString() } }, { status: 200 });
    await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    expect(await drainAt(start, 90 * SECOND - 1, r)).toBe(1);
    expect(await drainAt(start, 90 * SECOND, r)).toBe(2);
  });

  it('when a 503 comes without Retry-After, then it is an ordinary failure: retried on the schedule and held against the endpoint', async () => {
    const { r, clinic, endpoint } = await setUp({ status: 503 }, { status: 200 });
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    const [attempt] = await attemptsOf(t.ctx, eventId);
    expect(attempt).toMatchObject({ response_status: 503, throttled: 0 });
    expect(await endpointRow(endpoint.webhookId)).toMatchObject({
      paused_until: null,
      failing_since: time.clock().toISOString(),
    });
    const due = Date.parse((await deliveriesOf(t.ctx, eventId))[0]!.next_attempt_at!);
    expect(due - time.now()).toBeLessThanOrEqual(5.5 * SECOND);
    time.set(due);
    await worker.drain();
    expect(r.received).toHaveLength(2);
  });

  it("when a Retry-After is shorter than the schedule's next step, then the throttled delivery waits for the step, while the endpoint's other deliveries go after the Retry-After", async () => {
    const { r, clinic } = await setUp({ status: 429, headers: { 'retry-after': '2' } }, { status: 200 });
    const start = time.now();
    const throttled = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    const due = Date.parse((await deliveriesOf(t.ctx, throttled))[0]!.next_attempt_at!);
    // The schedule's second step: 5 s ± 10 %.
    expect(due - start).toBeGreaterThanOrEqual(4.5 * SECOND);
    const next = await emitEvent(t.ctx, clinic.clinicId);
    expect(await drainAt(start, 2 * SECOND - 1, r)).toBe(1);
    expect(await drainAt(start, 2 * SECOND, r)).toBe(2);
    expect(r.received[1]!.headers['webhook-id']).toBe(next);
    expect(await drainAt(start, due - start, r)).toBe(3);
    expect(r.received[2]!.headers['webhook-id']).toBe(throttled);
  });

  it('when a throttle is logged, then the partner sees it in the delivery log as throttled', async () => {
    const { clinic } = await setUp({ status: 429, headers: { 'retry-after': '30' } });
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    await worker.drain();
    const res = await t.partner(clinic.apiKey).get('/api/external/webhook/deliveries');
    expect(res.status).toBe(200);
    const delivery = res.body.data.items.find((d: { event_id: string }) => d.event_id === eventId);
    expect(delivery.attempts).toEqual([expect.objectContaining({ status_code: 429, throttled: true })]);
  });

  it('when an endpoint allows 3 attempts a second, then 10 due deliveries go 3 per second', async () => {
    const { r, clinic, endpoint } = await setUp({ status: 200 });
    await setEndpointLimits(t.ctx, endpoint.webhookId, { max_per_second: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await emitEvent(t.ctx, clinic.clinicId));
    const start = time.now();
    expect(await drainAt(start, 0, r)).toBe(3);
    expect(await drainAt(start, SECOND - 1, r)).toBe(3);
    expect(await drainAt(start, SECOND, r)).toBe(6);
    expect(await drainAt(start, 2 * SECOND, r)).toBe(9);
    expect(await drainAt(start, 3 * SECOND, r)).toBe(10);
    expect(new Set(r.received.map((g) => g.headers['webhook-id']))).toEqual(new Set(ids));
    for (const id of ids) expect((await deliveriesOf(t.ctx, id))[0]).toMatchObject({ status: 'delivered', attempt_count: 1 });
  });
});

/**
 * Fairness (issue 18, item 4): one endpoint's backlog never delays another endpoint's fresh events.
 * Counted, not timed: how many of the busy endpoint's deliveries arrive between the quiet
 * endpoint's event and its arrival is bounded by what the busy lane holds (8 × max_in_flight) and a
 * look's top-up, never by the backlog.
 */
describe.each(DIALECTS)('fairness between endpoints on %s', (dialect) => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await t.close();
  });

  const withEndpoint = async (): Promise<{ r: WebhookReceiver; clinic: TestClinic }> => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    const clinic = await t.createClinic();
    await registerEndpoint(t, clinic, r.url());
    return { r, clinic };
  };

  it(
    'when one endpoint has 2,000 deliveries waiting, then another endpoint’s fresh event arrives before at most 250 of them',
    { timeout: 60_000 },
    async () => {
      const busy = await withEndpoint();
      const quiet = await withEndpoint();
      const BACKLOG = 2000;
      for (let i = 0; i < BACKLOG; i += 200) {
        await runChange(t.ctx, null, (change) => {
          for (let j = 0; j < 200; j++) {
            change.event({
              clinicId: busy.clinic.clinicId,
              type: 'order.created',
              payload: { status: 'pending' },
            });
          }
        });
      }
      await dispatchOutbox(t.ctx);
      const worker = await WebhookWorker.start(t.ctx);
      try {
        await busy.r.waitFor(50);
        const quietEvent = await emitEvent(t.ctx, quiet.clinic.clinicId);
        const busyBefore = busy.r.received.length;
        const [got] = await quiet.r.waitFor(1);
        const busyMeanwhile = busy.r.received.length - busyBefore;
        expect(got!.headers['webhook-id']).toBe(quietEvent);
        expect(busy.r.received.length).toBeLessThan(BACKLOG);
        // The busy lane's buffer (80) and attempts in flight (10), and a look's top-up (80) at most.
        expect(busyMeanwhile).toBeLessThanOrEqual(250);
        await busy.r.waitFor(BACKLOG, 45_000);
      } finally {
        await worker.stop();
      }
    },
  );
});
