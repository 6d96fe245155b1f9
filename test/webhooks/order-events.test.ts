import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { advanceOrder, createOrder, createOrderSetup, requestRefill, type OrderSetup } from '../helpers/factories.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { WebhookReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.js';
import { fastEnv, registerEndpoint, startWorker, type Registered } from './support.js';

/** The verified events a receiver got, in arrival order. */
function verifiedEvents(secret: string, requests: ReceivedRequest[]) {
  return requests.map((request) => ({ id: request.headers['webhook-id'] as string, ...WebhookReceiver.verify(secret, request) }));
}

describe.each(DIALECTS)('order events delivered as webhooks on %s', (dialect) => {
  let t: TestApp;
  let worker: WebhookWorker;
  let receiver: WebhookReceiver;
  let setup: OrderSetup;
  let endpoint: Registered;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: fastEnv() });
    worker = await startWorker(t);
    receiver = await WebhookReceiver.start();
    setup = await createOrderSetup(t);
    endpoint = await registerEndpoint(t, setup.clinic, receiver.url());
  });
  afterAll(async () => {
    await worker.stop();
    await receiver.stop();
    await t.close();
  });

  /** The events of the outbox, as written by the orders feature, keyed by id. */
  async function outbox() {
    const rows = await t.ctx.db.selectFrom('outbox_events').selectAll().where('clinic_id', '=', setup.clinic.clinicId).execute();
    return new Map(
      rows.map((r) => [r.id, { type: r.type, created_at: r.created_at, payload: JSON.parse(r.payload) as unknown }]),
    );
  }

  it('when an order is created, then order.created reaches the receiver at once (the commit wakes the worker), signed as stored', async () => {
    const before = receiver.received.length;
    // The worker polls only hourly: once idle, only the wake-up of the order's commit can send this.
    await worker.whenIdle();
    const orderId = await createOrder(t, setup);
    const got = await receiver.waitFor(before + 1);
    const request = got[before]!;
    const [event] = verifiedEvents(endpoint.secret, [request]);
    expect(event).toMatchObject({ type: 'order.created', data: { medication_request_id: orderId, status: 'pending' } });
    const stored = (await outbox()).get(event!.id);
    expect(event).toEqual({ id: event!.id, type: 'order.created', timestamp: stored!.created_at, data: stored!.payload });
  });

  it('when an order ships, is delivered, is refilled and a refill is cancelled, then order.fulfilled, order.delivered, order.created, refill.ready and order.cancelled arrive signed with their documented payloads', async () => {
    const base = receiver.received.length;
    const orderId = await createOrder(t, setup);
    const before = base + 1; // after this order's own order.created
    await receiver.waitFor(before);

    await advanceOrder(t, setup.clinic, orderId, 'shipped');
    await advanceOrder(t, setup.clinic, orderId, 'delivered');
    const refill = await requestRefill(t, setup.clinic, orderId);
    const cancel = await t
      .partner(setup.clinic.apiKey)
      .post(`/api/external/medication-order/${refill.medication_order_id}/cancel`);
    expect(cancel.status).toBe(200);

    // order.fulfilled, shipment.updated + order.delivered (delivering by status delivers the package),
    // order.created + refill.ready (the refill), order.cancelled.
    const got = await receiver.waitFor(before + 6);
    const events = verifiedEvents(endpoint.secret, got.slice(before));
    const byType = new Map(events.map((e) => [e.type as string, e]));
    expect([...byType.keys()].sort()).toEqual([
      'order.cancelled',
      'order.created',
      'order.delivered',
      'order.fulfilled',
      'refill.ready',
      'shipment.updated',
    ]);
    expect(byType.get('shipment.updated')!.data).toMatchObject({ medication_request_id: orderId, status: 'delivered' });

    expect(byType.get('order.fulfilled')!.data).toMatchObject({
      medication_request_id: orderId,
      status: 'shipped',
      tracking_number: expect.any(String),
    });
    expect(byType.get('order.delivered')!.data).toMatchObject({ medication_request_id: orderId, status: 'delivered' });
    expect(byType.get('order.created')!.data).toMatchObject({
      medication_request_id: refill.medication_order_id,
      status: 'pending',
      refill_of: orderId,
    });
    expect(byType.get('refill.ready')!.data).toMatchObject({
      refill_request_id: refill.refill_request_id,
      medication_request_id: refill.medication_order_id,
    });
    expect(byType.get('order.cancelled')!.data).toMatchObject({
      medication_request_id: refill.medication_order_id,
      status: 'cancelled',
    });

    // Each body is exactly the outbox event: {type, timestamp: created_at, data: payload}, webhook-id = event id.
    const stored = await outbox();
    for (const event of events) {
      const row = stored.get(event.id);
      expect(row).toBeDefined();
      expect(event).toEqual({ id: event.id, type: row!.type, timestamp: row!.created_at, data: row!.payload });
    }
    // No PHI: the payloads carry ids and statuses, never the patient's name or address.
    const raw = got
      .slice(before)
      .map((r) => r.body)
      .join('\n');
    for (const phi of ['Grace', 'Hopper', 'Elm St', '1980-12-09', 'grace@example.com']) expect(raw).not.toContain(phi);
  });
});
