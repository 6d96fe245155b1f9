import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCarrierTracking } from '../../src/shipments/carrier-tracking.service.js';
import { advanceOrder, createOrder, createOrderSetup, getOrder, outboxEventsOf, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('shipments over HTTP on %s', (dialect) => {
  let t: TestApp;
  const addShipment = (id: string, body: Record<string, unknown>) =>
    t.operator.post(`/api/admin/medication-requests/${id}/shipments`, body);
  const event = (id: string, shipmentId: string, body: Record<string, unknown>) =>
    t.operator.post(`/api/admin/medication-requests/${id}/shipments/${shipmentId}/events`, body);

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  /** `seconds` after the order shipped (within the 5 minutes an event may be ahead of the clock). */
  let shippedAt = '';
  const at = (seconds: number) => new Date(Date.parse(shippedAt) + seconds * 1000).toISOString();

  async function shipped(): Promise<{ setup: OrderSetup; id: string; first: { shipment_id: string; tracking_number: string } }> {
    const setup = await createOrderSetup(t);
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'shipped');
    const order = await getOrder(t, setup.clinic, id);
    expect(order.shipments).toHaveLength(1);
    shippedAt = order.shipped_at;
    return { setup, id, first: order.shipments[0] };
  }

  it('two packages: each journey, the order delivered when both are; an exception holds it, the partner answers, the pharmacy resumes it to shipped', async () => {
    const { setup, id, first } = await shipped();
    const before = await getOrder(t, setup.clinic, id);
    expect(before.tracking_number).toBe(first.tracking_number);
    expect(before.shipments[0]).toEqual({
      shipment_id: first.shipment_id,
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
      tracking_number: first.tracking_number,
      tracking_url: `https://www.fedex.com/fedextrack/?trknbr=${first.tracking_number}`,
      status: 'in_transit',
      estimated_delivery_date: null,
      events: [{ status: 'in_transit', occurred_at: before.shipped_at, location: null, description: null }],
    });

    const added = await addShipment(id, { tracking_number: '7946 1234 5678' });
    expect(added.status).toBe(200);
    expect(added.body.data.shipments).toHaveLength(2);
    const second = added.body.data.shipments[1];
    expect(second).toMatchObject({ carrier_id: 'fedex', status: 'in_transit', tracking_number: '7946 1234 5678' });

    // The second package hits a problem: the order goes on hold, waiting on the partner.
    const exception = await event(id, second.shipment_id, {
      status: 'exception',
      occurred_at: at(10),
      location: 'Memphis, TN',
      description: 'Address not found',
    });
    expect(exception.status).toBe(200);
    expect(exception.body.data.status).toBe('on_hold');
    expect(exception.body.data.hold).toMatchObject({ reason_code: 'delivery_exception', waiting_on: 'partner' });

    // The partner may not cancel a shipped order; it answers, and the pharmacy resumes it to shipped.
    const api = t.partner(setup.clinic.apiKey);
    const cancel = await api.post(`/api/external/medication-order/${id}/hold-response`, { message: 'Cancel it', cancel: true });
    expect(cancel.status).toBe(409);
    expect(Object.keys(cancel.body.error.details)).toEqual(['cancel']);
    const cancelRoute = await api.post(`/api/external/medication-order/${id}/cancel`, {});
    expect(cancelRoute.status).toBe(409);
    const answer = await api.post(`/api/external/medication-order/${id}/hold-response`, {
      message: 'The patient confirmed the address.',
    });
    expect(answer.status).toBe(200);
    const resumed = await t.operator.post(`/api/admin/medication-requests/${id}/resume`, {});
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.status).toBe('shipped');

    // Both packages delivered (one by the operator, one by the carrier): the order is delivered at the last delivery.
    const one = await event(id, first.shipment_id, { status: 'delivered', occurred_at: at(20) });
    expect(one.body.data.status).toBe('shipped');
    expect(
      await applyCarrierTracking(t.ctx, {
        tracking_number: '7946 1234 5678',
        estimated_delivery_date: null,
        events: [{ status: 'delivered', occurred_at: at(30), location: 'Portland, ME', description: null }],
      }),
    ).toBe('applied');
    const done = await getOrder(t, setup.clinic, id);
    expect(done.status).toBe('delivered');
    expect(done.delivered_at).toBe(at(30));
    expect(done.shipments.map((s: { status: string }) => s.status)).toEqual(['delivered', 'delivered']);
    expect(done.shipments[1].events.map((e: { status: string }) => e.status)).toEqual(['in_transit', 'exception', 'delivered']);

    const events = await outboxEventsOf(t, id);
    expect(events.map((e) => e.type)).toEqual([
      'order.created',
      'order.fulfilled',
      'shipment.updated',
      'shipment.updated',
      'order.on_hold',
      'order.resumed',
      'shipment.updated',
      'shipment.updated',
      'order.delivered',
    ]);
    const sequences = events.filter((e) => e.type === 'shipment.updated').map((e) => e.payload.sequence as number);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    expect(JSON.stringify(events)).not.toContain('Memphis');
    expect(JSON.stringify(events)).not.toContain('Address not found');
  });

  it('a replayed event records nothing; an older event joins the journey without moving the status back; a delivered shipment ignores events', async () => {
    const { setup, id, first } = await shipped();
    const body = { status: 'out_for_delivery', occurred_at: at(20), estimated_delivery_date: '2026-01-03' };
    expect((await event(id, first.shipment_id, body)).status).toBe(200);
    const countBefore = (await outboxEventsOf(t, id)).length;
    const replay = await event(id, first.shipment_id, body);
    expect(replay.status).toBe(200);
    expect((await outboxEventsOf(t, id)).length).toBe(countBefore);

    const older = await event(id, first.shipment_id, {
      status: 'in_transit',
      occurred_at: '2026-01-02T08:00:00Z',
      location: 'Reno, NV',
    });
    expect(older.body.data.shipments[0].status).toBe('out_for_delivery');
    expect(older.body.data.shipments[0].estimated_delivery_date).toBe('2026-01-03');
    expect((await outboxEventsOf(t, id)).length).toBe(countBefore);

    // The operator's status change to delivered delivers the package too.
    const delivered = await t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'delivered' });
    expect(delivered.status).toBe(200);
    expect(delivered.body.data.shipments[0].status).toBe('delivered');
    const after = await event(id, first.shipment_id, { status: 'exception', occurred_at: new Date().toISOString() });
    expect(after.status).toBe(200);
    expect(after.body.data.status).toBe('delivered');
    expect(after.body.data.shipments[0].status).toBe('delivered');
    const order = await getOrder(t, setup.clinic, id);
    expect(order.shipments[0].events.map((e: { status: string }) => e.status)).toEqual([
      'in_transit',
      'in_transit',
      'out_for_delivery',
      'delivered',
    ]);
  });

  it('bad inputs are 400s naming the field; a shipment of another order and another clinic\u2019s order are 404; an unshipped order takes no shipment', async () => {
    const { setup, id, first } = await shipped();
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await event(id, first.shipment_id, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(Object.keys(res.body.error.details)).toContain(field);
    };
    await bad({ status: 'lost', occurred_at: '2026-01-02T08:00:00Z' }, 'status');
    await bad({ status: 'in_transit', occurred_at: 'yesterday' }, 'occurred_at');
    await bad({ status: 'in_transit', occurred_at: '2999-01-02T08:00:00Z' }, 'occurred_at');
    await bad({ status: 'in_transit', occurred_at: '2026-01-02T08:00:00Z', location: 'Reno\u0000' }, 'location');
    await bad({ status: 'in_transit', occurred_at: '2026-01-02T08:00:00Z', description: 'x'.repeat(501) }, 'description');
    await bad(
      { status: 'in_transit', occurred_at: '2026-01-02T08:00:00Z', estimated_delivery_date: '2026-13-40' },
      'estimated_delivery_date',
    );
    const badTracking = await addShipment(id, { tracking_number: '1Z999' });
    expect(badTracking.status).toBe(400);
    expect(Object.keys(badTracking.body.error.details)).toEqual(['tracking_number']);
    const badCarrier = await addShipment(id, { tracking_number: '794612345678', carrier_id: 'nope', service_id: 'x' });
    expect(badCarrier.status).toBe(400);
    expect(Object.keys(badCarrier.body.error.details)).toEqual(['carrier_id']);

    const other = await shipped();
    const crossed = await event(id, other.first.shipment_id, { status: 'in_transit', occurred_at: '2026-01-02T08:00:00Z' });
    expect(crossed.status).toBe(404);
    const sandbox = (clinicKey: string, orderId: string, shipmentId: string) =>
      t.partner(clinicKey).post(`/api/external/sandbox/medication-order/${orderId}/shipments/${shipmentId}/events`, {
        status: 'out_for_delivery',
        occurred_at: at(10),
      });
    expect((await sandbox(other.setup.clinic.apiKey, id, first.shipment_id)).status).toBe(404);
    const own = await sandbox(setup.clinic.apiKey, id, first.shipment_id);
    expect(own.status).toBe(200);
    expect(own.body.data.shipments[0].status).toBe('out_for_delivery');

    const pendingSetup = await createOrderSetup(t);
    const pending = await createOrder(t, pendingSetup);
    expect((await addShipment(pending, { tracking_number: '794612345678' })).status).toBe(409);
    expect((await getOrder(t, pendingSetup.clinic, pending)).shipments).toEqual([]);
  });
});
