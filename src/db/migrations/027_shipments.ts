import type { Kysely } from 'kysely';
import { newId } from '../../shared/ids.js';

/**
 * Shipments and their journey (issue 31, items 1 and 3; docs/shipping.md#shipments-and-their-journey):
 * - `shipments`: the packages of an order, each with its carrier, service and tracking number, and
 *   the status of its latest event (`status_at`: when that event happened). The carrier receiver
 *   finds a shipment by its tracking number; an order's read finds its shipments by the order.
 * - `shipment_events`: each shipment's journey. `(shipment_id, status, occurred_at)` is unique, so
 *   that a replayed event (the carrier's retry, the operator's double click) records nothing.
 *
 * Backfill: every shipped or delivered order with a tracking number gets its one shipment (status
 * `in_transit` from its shipped_at, or `delivered` at its delivered_at, each with the event that says
 * so), so that every read shows the same journey whatever the order's age. Batched, on both dialects.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shipments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('medication_request_id', 'text', (c) => c.notNull().references('medication_requests.id'))
    .addColumn('clinic_id', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('tracking_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_at', 'text')
    /** YYYY-MM-DD */
    .addColumn('estimated_delivery_date', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shipments_tracking_number_idx').on('shipments').columns(['tracking_number']).execute();
  await db.schema.createIndex('shipments_order_idx').on('shipments').columns(['medication_request_id', 'id']).execute();

  await db.schema
    .createTable('shipment_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shipment_id', 'text', (c) => c.notNull().references('shipments.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('location', 'text')
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('shipment_events_replay_key', ['shipment_id', 'status', 'occurred_at'])
    .execute();

  await backfill(db);
}

const BATCH = 500;

async function backfill(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const orders: {
      id: string;
      clinic_id: string;
      carrier_id: string;
      service_id: string;
      tracking_number: string;
      status: string;
      shipped_at: string | null;
      delivered_at: string | null;
      updated_at: string;
    }[] = await db
      .selectFrom('medication_requests')
      .select([
        'id',
        'clinic_id',
        'carrier_id',
        'service_id',
        'tracking_number',
        'status',
        'shipped_at',
        'delivered_at',
        'updated_at',
      ])
      .where('status', 'in', ['shipped', 'delivered'])
      .where('tracking_number', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (orders.length === 0) return;
    const shipments: Record<string, unknown>[] = [];
    const events: Record<string, unknown>[] = [];
    for (const o of orders) {
      const id = newId();
      const shippedAt = o.shipped_at ?? o.updated_at;
      const delivered = o.status === 'delivered';
      const deliveredAt = delivered ? (o.delivered_at ?? o.updated_at) : null;
      shipments.push({
        id,
        medication_request_id: o.id,
        clinic_id: o.clinic_id,
        carrier_id: o.carrier_id,
        service_id: o.service_id,
        tracking_number: o.tracking_number,
        status: delivered ? 'delivered' : 'in_transit',
        status_at: deliveredAt ?? shippedAt,
        estimated_delivery_date: null,
        delivered_at: deliveredAt,
        created_at: shippedAt,
        updated_at: deliveredAt ?? shippedAt,
      });
      events.push(eventRow(id, 'in_transit', shippedAt));
      if (deliveredAt !== null) events.push(eventRow(id, 'delivered', deliveredAt));
    }
    await db.insertInto('shipments').values(shipments).execute();
    await db.insertInto('shipment_events').values(events).execute();
    after = orders[orders.length - 1]?.id ?? after;
  }
}

const eventRow = (shipmentId: string, status: string, at: string) => ({
  id: newId(),
  shipment_id: shipmentId,
  status,
  occurred_at: at,
  location: null,
  description: null,
  created_at: at,
});

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('shipment_events').execute();
  await db.schema.dropTable('shipments').execute();
}
