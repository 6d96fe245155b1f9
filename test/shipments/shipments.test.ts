import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCarrierTracking } from '../../src/shipments/carrier-tracking.service.js';
import { advanceOrder, createOrder, createOrderSetup, outboxEventsOf } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('shipments on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  /** A new order (its own patient: no duplicate therapy hold) shipped by the sandbox. */
  async function shippedOrder(): Promise<{ id: string; tracking: string; shipmentId: string }> {
    const own = await createOrderSetup(t);
    const id = await createOrder(t, own);
    await advanceOrder(t, own.clinic, id, 'shipped');
    const shipments = await t.ctx.db.selectFrom('shipments').selectAll().where('medication_request_id', '=', id).execute();
    expect(shipments).toHaveLength(1);
    return { id, tracking: shipments[0]!.tracking_number, shipmentId: shipments[0]!.id };
  }

  const shipmentRow = (id: string) => t.ctx.db.selectFrom('shipments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const eventsOf = (id: string) =>
    t.ctx.db.selectFrom('shipment_events').selectAll().where('shipment_id', '=', id).orderBy('occurred_at').execute();

  it('marking an order shipped creates its first shipment, in_transit with its first event, under the order tracking number', async () => {
    const { id, tracking, shipmentId } = await shippedOrder();
    const order = await t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(order.tracking_number).toBe(tracking);
    const shipment = await shipmentRow(shipmentId);
    expect(shipment).toMatchObject({
      status: 'in_transit',
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
      clinic_id: order.clinic_id,
    });
    expect((await eventsOf(shipmentId)).map((e) => e.status)).toEqual(['in_transit']);
  });

  it('applyCarrierTracking: applied, then unchanged on a replay, unknown for a number no shipment has; delivered delivers the order', async () => {
    const { id, tracking, shipmentId } = await shippedOrder();
    expect(
      await applyCarrierTracking(t.ctx, { tracking_number: '999999999999', events: [], estimated_delivery_date: null }),
    ).toBe('unknown_tracking_number');
    const update = {
      tracking_number: tracking,
      estimated_delivery_date: '2030-01-05',
      events: [
        {
          status: 'out_for_delivery' as const,
          occurred_at: '2030-01-04T08:00:00Z',
          location: 'Memphis, TN',
          description: 'On the truck',
        },
      ],
    };
    expect(await applyCarrierTracking(t.ctx, update)).toBe('applied');
    expect(await shipmentRow(shipmentId)).toMatchObject({ status: 'out_for_delivery', estimated_delivery_date: '2030-01-05' });
    expect(await applyCarrierTracking(t.ctx, update)).toBe('unchanged');
    expect(await eventsOf(shipmentId)).toHaveLength(2);

    const delivered = {
      ...update,
      events: [
        ...update.events,
        { status: 'delivered' as const, occurred_at: '2030-01-04T15:30:00.000Z', location: null, description: null },
      ],
    };
    expect(await applyCarrierTracking(t.ctx, delivered)).toBe('applied');
    const order = await t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(order.status).toBe('delivered');
    expect(order.delivered_at).toBe('2030-01-04T15:30:00.000Z');
    // A delivered shipment's journey is over: a later event changes nothing.
    expect(
      await applyCarrierTracking(t.ctx, {
        ...update,
        events: [{ status: 'exception', occurred_at: '2030-01-05T08:00:00Z', location: null, description: null }],
      }),
    ).toBe('unchanged');
    const types = (await outboxEventsOf(t, id)).map((e) => e.type);
    expect(types).toEqual(['order.created', 'order.fulfilled', 'shipment.updated', 'shipment.updated', 'order.delivered']);
    const updates = (await outboxEventsOf(t, id)).filter((e) => e.type === 'shipment.updated').map((e) => e.payload);
    expect(updates[0]).toEqual({
      medication_request_id: id,
      shipment_id: shipmentId,
      status: 'out_for_delivery',
      tracking_number: tracking,
      tracking_url: `https://www.fedex.com/fedextrack/?trknbr=${tracking}`,
      estimated_delivery_date: '2030-01-05',
      sequence: expect.any(Number),
    });
    expect(updates[1]!.sequence).toBeGreaterThan(updates[0]!.sequence);
    expect(JSON.stringify(updates)).not.toContain('Memphis');
  });
});
