import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { advanceOrder, createOrder, createOrderSetup, type OrderSetup } from '../helpers/factories.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitEvent, fakeClock, registerEndpoint } from '../webhooks/support.js';

/** Now, for every test of this file: a Wednesday noon (UTC); 2030-04-08 is the Monday of last week. */
const NOW = '2030-04-17T12:00:00.000Z';

const ZERO = { pending: 0, processing: 0, shipped: 0, delivered: 0, cancelled: 0, on_hold: 0 };

describe.each(DIALECTS)('GET /api/admin/dashboard on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse('2030-03-08T12:00:00.000Z'));
  const receivers: WebhookReceiver[] = [];
  let worker: WebhookWorker;
  let shop: OrderSetup;
  let hooks: TestClinic;
  let goneWebhookId = '';

  /** Runs `step` with the clock at `at`. */
  const at = async <T>(iso: string, step: () => Promise<T>): Promise<T> => {
    time.set(Date.parse(iso));
    return step();
  };
  /** An event of the webhook clinic, fanned out and attempted once per endpoint, now. */
  const deliverRound = async () => {
    await emitEvent(t.ctx, hooks.clinicId);
    await dispatchOutbox(t.ctx);
    await worker.drain();
  };

  beforeAll(async () => {
    // One attempt per delivery: each round's failures are failed at once.
    t = await TestApp.start({ dialect, clock: time.clock, env: { WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '5000' } });
    worker = new WebhookWorker(t.ctx);
    shop = await createOrderSetup(t, { clinicName: 'Riverside Family Clinic' });
    hooks = await t.createClinic({ name: 'Lakeside Telehealth' });
    const order = () => createOrder(t, shop);
    const to = (id: string, status: 'processing' | 'shipped' | 'cancelled') => advanceOrder(t, shop.clinic, id, status);

    // Before the 30 days: counted nowhere.
    await to(await order(), 'cancelled');
    // Last week: four orders shipped 10, 20, 30 and 40 hours after they were created.
    const b = await at('2030-04-08T08:00:00.000Z', async () => [await order(), await order(), await order(), await order()]);
    await at('2030-04-08T18:00:00.000Z', () => to(b[0]!, 'shipped'));
    await at('2030-04-09T04:00:00.000Z', () => to(b[1]!, 'shipped'));
    await at('2030-04-09T09:00:00.000Z', order); // pending for 8 days and 3 hours
    await at('2030-04-09T14:00:00.000Z', () => to(b[2]!, 'shipped'));
    await at('2030-04-10T00:00:00.000Z', () => to(b[3]!, 'shipped'));
    // This week.
    const processing = await at('2030-04-15T12:00:00.000Z', order); // waiting 48 hours
    await at('2030-04-15T13:00:00.000Z', () => to(processing, 'processing'));
    const shippedIn23Hours = await at('2030-04-16T12:00:00.000Z', order);

    // Three endpoints: one answers 500, one 410 Gone (disabled at once), one 200.
    const failing = await WebhookReceiver.start([{ status: 500 }]);
    const gone = await WebhookReceiver.start([{ status: 410 }]);
    const healthy = await WebhookReceiver.start([{ status: 200 }]);
    receivers.push(failing, gone, healthy);
    await at('2030-04-17T08:30:00.000Z', async () => {
      await registerEndpoint(t, hooks, failing.url());
      goneWebhookId = (await registerEndpoint(t, hooks, gone.url())).webhookId;
      await registerEndpoint(t, hooks, healthy.url());
    });
    await at('2030-04-17T09:15:00.000Z', deliverRound);
    await at('2030-04-17T10:00:00.000Z', order); // waiting 2 hours
    await at('2030-04-17T11:00:00.000Z', () => to(shippedIn23Hours, 'shipped'));
    await at('2030-04-17T11:20:00.000Z', deliverRound);
    await at('2030-04-17T11:30:00.000Z', order); // waiting 30 minutes
    time.set(Date.parse(NOW));
  });
  afterAll(async () => {
    await worker.stop();
    await Promise.all(receivers.map((r) => r.stop()));
    await t.close();
  });

  const dashboard = async () => {
    const res = await t.operator.get('/api/admin/dashboard');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };

  it('when the dashboard is read, then orders are counted per day of the last 30 by their status now', async () => {
    const { generated_at, orders_per_day } = await dashboard();

    expect(generated_at).toBe(NOW);
    expect(orders_per_day).toHaveLength(30);
    expect(orders_per_day[0].date).toBe('2030-03-19');
    expect(orders_per_day[29].date).toBe('2030-04-17');
    const busy = orders_per_day.filter((day: any) => total(day) > 0);
    expect(busy).toEqual([
      { date: '2030-04-08', ...ZERO, shipped: 4 },
      { date: '2030-04-09', ...ZERO, pending: 1 },
      { date: '2030-04-15', ...ZERO, processing: 1 },
      { date: '2030-04-16', ...ZERO, shipped: 1 },
      { date: '2030-04-17', ...ZERO, pending: 2 },
    ]);
  });

  it('when the dashboard is read, then each of 12 weeks has the median and 90th percentile of its hours to shipping', async () => {
    const { time_to_ship } = await dashboard();

    expect(time_to_ship).toHaveLength(12);
    expect(time_to_ship[0]).toEqual({ week_start: '2030-01-28', shipped: 0, median_hours: null, p90_hours: null });
    // 10, 20, 30, 40 hours: the median halfway between 20 and 30; the 90th percentile 70% of the way from 30 to 40.
    expect(time_to_ship[10]).toEqual({ week_start: '2030-04-08', shipped: 4, median_hours: 25, p90_hours: 37 });
    expect(time_to_ship[11]).toEqual({ week_start: '2030-04-15', shipped: 1, median_hours: 23, p90_hours: 23 });
    expect(time_to_ship.slice(0, 10).every((week: any) => week.shipped === 0)).toBe(true);
  });

  it('when the dashboard is read, then the orders waiting now are counted by age and status', async () => {
    const { waiting } = await dashboard();

    expect(waiting.map((bucket: any) => [bucket.age, bucket.pending, bucket.processing])).toEqual([
      ['under_1h', 1, 0],
      ['1h_to_4h', 1, 0],
      ['4h_to_24h', 0, 0],
      ['1d_to_3d', 0, 1],
      ['3d_to_7d', 0, 0],
      ['over_7d', 1, 0],
    ]);
    expect(waiting[0].label).toBe('Under 1 hour');
  });

  it('when the dashboard is read, then webhook attempts and failures are counted per hour of the last 48', async () => {
    const { webhook_attempts_per_hour: hours } = await dashboard();

    expect(hours).toHaveLength(48);
    expect(hours[0].hour).toBe('2030-04-15T13:00:00.000Z');
    expect(hours[47].hour).toBe('2030-04-17T12:00:00.000Z');
    expect(hours.filter((hour: any) => hour.attempts > 0)).toEqual([
      { hour: '2030-04-17T09:00:00.000Z', attempts: 3, failed: 2 },
      // The endpoint that answered 410 is disabled: no attempt to it.
      { hour: '2030-04-17T11:00:00.000Z', attempts: 2, failed: 1 },
    ]);
  });

  it('when the dashboard is read, then the endpoints disabled are counted and named with their clinic and reason', async () => {
    const { endpoints } = await dashboard();

    expect(endpoints).toEqual({
      active: 2,
      disabled: 1,
      disabled_endpoints: [
        {
          webhook_id: goneWebhookId,
          clinic_id: hooks.clinicId,
          clinic_name: 'Lakeside Telehealth',
          webhook_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hook$/),
          disabled_at: '2030-04-17T09:15:00.000Z',
          disabled_reason: expect.stringContaining('410'),
        },
      ],
    });
  });

  it('when a partner key calls the dashboard, then it is refused', async () => {
    const res = await t.partner(shop.clinic.apiKey).get('/api/admin/dashboard');

    expect(res.status).toBe(401);
  });
});

const total = (day: Record<string, unknown>): number =>
  Object.values(day).reduce<number>((sum, value) => sum + (typeof value === 'number' ? value : 0), 0);
