import type { DbOrTrx, Trx } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { ShipmentEventTable, ShipmentTable } from './shipment.tables.js';

/* The shipments of orders and their journeys (migration 027; docs/shipping.md#shipments-and-their-journey). */

/**
 * Records a new shipment at once (not at the change's commit): a later step of the same change (the
 * sandbox's advance to delivered) reads it.
 */
export async function insertShipment(trx: Trx, row: ShipmentTable): Promise<void> {
  await trx.insertInto('shipments').values(row).execute();
}

/**
 * Records the events not yet recorded (a replay of `(shipment_id, status, occurred_at)` records
 * nothing) and returns the ids of those it recorded. Runs at once: the caller needs the answer.
 */
export async function insertNewEvents(trx: Trx, rows: ShipmentEventTable[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await trx
    .insertInto('shipment_events')
    .values(rows)
    .onConflict((oc) => oc.columns(['shipment_id', 'status', 'occurred_at']).doNothing())
    .returning('id')
    .execute();
  return new Set(inserted.map((r) => r.id));
}

/** The shipment a carrier's tracking number names: the newest, when a number was reused. Indexed. */
export async function findShipmentByTracking(db: DbOrTrx, trackingNumber: string): Promise<ShipmentTable | undefined> {
  return db
    .selectFrom('shipments')
    .selectAll()
    .where('tracking_number', '=', trackingNumber)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** One shipment of one order: another order's is not found. */
export async function findShipmentOfOrder(db: DbOrTrx, orderId: string, shipmentId: string): Promise<ShipmentTable | undefined> {
  return db
    .selectFrom('shipments')
    .selectAll()
    .where('id', '=', shipmentId)
    .where('medication_request_id', '=', orderId)
    .executeTakeFirst();
}

/** The shipments of an order, first first. */
export async function listShipmentsOfOrder(db: DbOrTrx, orderId: string): Promise<ShipmentTable[]> {
  return db.selectFrom('shipments').selectAll().where('medication_request_id', '=', orderId).orderBy('id').execute();
}

export type ShipmentChanges = Partial<
  Pick<ShipmentTable, 'status' | 'status_at' | 'estimated_delivery_date' | 'delivered_at' | 'updated_at'>
>;

export async function updateShipment(trx: Trx, shipmentId: string, set: ShipmentChanges): Promise<void> {
  await trx.updateTable('shipments').set(set).where('id', '=', shipmentId).execute();
}

/** The name of a carrier of the catalog; undefined for an unknown id (a package the operator adds with another carrier). */
export async function findCarrierName(db: DbOrTrx, carrierId: string): Promise<string | undefined> {
  return (await db.selectFrom('carriers').select('name').where('id', '=', carrierId).executeTakeFirst())?.name;
}

/** Whether the catalog has the service of the carrier (a package the operator adds with another service). */
export async function serviceExists(db: DbOrTrx, carrierId: string, serviceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('shipping_services')
    .select('id')
    .where('carrier_id', '=', carrierId)
    .where('id', '=', serviceId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes the order's row for the rest of the change (a no-op UPDATE … RETURNING), and returns it as
 * it now is: every change to an order's shipments runs one at a time per order, so that two
 * packages delivered at once see each other and the order is delivered exactly once.
 */
export async function lockOrder(trx: Trx, orderId: string) {
  return trx
    .updateTable('medication_requests')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', orderId)
    .returningAll()
    .executeTakeFirst();
}

/** Shipments left-joined to their events, each order's first first, each journey oldest first. */
const shipmentsQuery = (db: DbOrTrx) =>
  db
    .selectFrom('shipments as s')
    .leftJoin('shipment_events as e', 'e.shipment_id', 's.id')
    .select([
      's.id',
      's.medication_request_id',
      's.clinic_id',
      's.carrier_id',
      's.service_id',
      's.tracking_number',
      's.status',
      's.status_at',
      's.estimated_delivery_date',
      's.delivered_at',
      's.created_at',
      's.updated_at',
      'e.status as event_status',
      'e.occurred_at as event_occurred_at',
      'e.location as event_location',
      'e.description as event_description',
    ])
    .orderBy('s.medication_request_id')
    .orderBy('s.id')
    .orderBy('e.occurred_at')
    .orderBy('e.id');

/** The one-order read (GET of an order, the answer of a change): compiled once (db/reusable-query.ts). */
const shipmentsOfOneOrder = reusableQuery((db, orderId: string) =>
  shipmentsQuery(db).where('s.medication_request_id', '=', orderId),
);

/** A shipment row with its events, as the one left-joined read returns them. */
export interface ShipmentWithEvents {
  shipment: ShipmentTable;
  events: Pick<ShipmentEventTable, 'status' | 'occurred_at' | 'location' | 'description'>[];
}

/**
 * The shipments of several orders with their events, in ONE query (shipments left-joined to their
 * events): each order's shipments first first, each journey oldest first.
 */
export async function listShipmentsWithEvents(db: DbOrTrx, orderIds: string[]): Promise<Map<string, ShipmentWithEvents[]>> {
  const byOrder = new Map<string, ShipmentWithEvents[]>();
  if (orderIds.length === 0) return byOrder;
  const rows =
    orderIds.length === 1
      ? await shipmentsOfOneOrder(db, orderIds[0] as string)
      : await shipmentsQuery(db).where('s.medication_request_id', 'in', orderIds).execute();
  const byId = new Map<string, ShipmentWithEvents>();
  for (const row of rows) {
    let entry = byId.get(row.id);
    if (entry === undefined) {
      entry = {
        shipment: {
          id: row.id,
          medication_request_id: row.medication_request_id,
          clinic_id: row.clinic_id,
          carrier_id: row.carrier_id,
          service_id: row.service_id,
          tracking_number: row.tracking_number,
          status: row.status,
          status_at: row.status_at,
          estimated_delivery_date: row.estimated_delivery_date,
          delivered_at: row.delivered_at,
          created_at: row.created_at,
          updated_at: row.updated_at,
        },
        events: [],
      };
      byId.set(row.id, entry);
      const list = byOrder.get(row.medication_request_id) ?? [];
      list.push(entry);
      byOrder.set(row.medication_request_id, list);
    }
    if (row.event_status !== null && row.event_occurred_at !== null) {
      entry.events.push({
        status: row.event_status,
        occurred_at: row.event_occurred_at,
        location: row.event_location,
        description: row.event_description,
      });
    }
  }
  return byOrder;
}
