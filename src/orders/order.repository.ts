import { sql } from 'kysely';
import type { DbOrTrx, Trx } from '../db/database.js';
import { insertRows } from '../db/row-insert.js';
import type { Write, WriteTarget } from '../db/write.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { OrderTable, MedicationItemTable, PrescriptionTable, StatusHistoryTable } from './order.tables.js';
import type { OrderStatus } from './order-status.js';
import { reusableQuery } from '../db/reusable-query.js';

export function orderInsert(change: WriteTarget, row: OrderTable): Write {
  return insertRows(change.statements, 'medication_requests', [row]);
}

export function prescriptionInsert(change: WriteTarget, row: PrescriptionTable): Write {
  return insertRows(change.statements, 'prescriptions', [row]);
}

export function itemsInsert(change: WriteTarget, items: MedicationItemTable[]): Write {
  return insertRows(change.statements, 'medication_items', items);
}

export function historyInsert(change: WriteTarget, row: StatusHistoryTable): Write {
  return insertRows(change.statements, 'medication_request_status_history', [row]);
}

/** One of the clinic's orders; another clinic's is not found. Primary key lookup. */
export async function findOrder(db: DbOrTrx, clinicId: string, orderId: string): Promise<OrderTable | undefined> {
  return (await orderOfClinic(db, clinicId, orderId))[0];
}

const orderOfClinic = reusableQuery((db, clinicId: string, orderId: string) =>
  db.selectFrom('medication_requests').selectAll().where('clinic_id', '=', clinicId).where('id', '=', orderId),
);

/** The operator's and the sandbox timer's lookup: unscoped on purpose (they act for the pharmacy). */
export async function findOrderUnscoped(db: DbOrTrx, orderId: string): Promise<OrderTable | undefined> {
  return db.selectFrom('medication_requests').selectAll().where('id', '=', orderId).executeTakeFirst();
}

export async function findPrescriptionOfOrder(db: DbOrTrx, orderId: string): Promise<PrescriptionTable | undefined> {
  return db.selectFrom('prescriptions').selectAll().where('medication_request_id', '=', orderId).executeTakeFirst();
}

/** The items of an order's prescription, in the order they were written (one query). */
export async function listItemsOfOrder(db: DbOrTrx, orderId: string): Promise<MedicationItemTable[]> {
  return db
    .selectFrom('medication_items')
    .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
    .selectAll('medication_items')
    .where('prescriptions.medication_request_id', '=', orderId)
    .orderBy('medication_items.position')
    .execute();
}

/** The items of several orders, each with its order's id, in the order they were written (one query). */
export async function listItemsOfOrders(
  db: DbOrTrx,
  orderIds: string[],
): Promise<(MedicationItemTable & { medication_request_id: string })[]> {
  if (orderIds.length === 0) return [];
  // One order (GET by id, a new order's answer): the same query with `=`, compiled once.
  if (orderIds.length === 1) return itemsOfOneOrder(db, orderIds[0] as string);
  return db
    .selectFrom('medication_items')
    .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
    .selectAll('medication_items')
    .select('prescriptions.medication_request_id')
    .where('prescriptions.medication_request_id', 'in', orderIds)
    .orderBy('medication_items.position')
    .execute();
}

const itemsOfOneOrder = reusableQuery((db, orderId: string) =>
  db
    .selectFrom('medication_items')
    .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
    .selectAll('medication_items')
    .select('prescriptions.medication_request_id')
    .where('prescriptions.medication_request_id', '=', orderId)
    .orderBy('medication_items.position'),
);

/** Items by id (the origin items of a chain, which hold its refill counters). */
export async function findItems(db: DbOrTrx, itemIds: string[]): Promise<MedicationItemTable[]> {
  if (itemIds.length === 0) return [];
  return db.selectFrom('medication_items').selectAll().where('id', 'in', itemIds).orderBy('position').execute();
}

/** The status history of several orders (one query), each order's rows in the order they were written. */
export async function listHistories(db: DbOrTrx, orderIds: string[]): Promise<StatusHistoryTable[]> {
  if (orderIds.length === 0) return [];
  if (orderIds.length === 1) return historyOfOneOrder(db, orderIds[0] as string);
  return db
    .selectFrom('medication_request_status_history')
    .selectAll()
    .where('medication_request_id', 'in', orderIds)
    .orderBy('at')
    .orderBy('id')
    .execute();
}

const historyOfOneOrder = reusableQuery((db, orderId: string) =>
  db
    .selectFrom('medication_request_status_history')
    .selectAll()
    .where('medication_request_id', '=', orderId)
    .orderBy('at')
    .orderBy('id'),
);

export type StatusChanges = Partial<
  Pick<
    OrderTable,
    | 'tracking_number'
    | 'shipped_at'
    | 'delivered_at'
    | 'cancelled_at'
    | 'hold_reason_code'
    | 'hold_message'
    | 'hold_waiting_on'
    | 'hold_since'
    | 'held_from'
    | 'hold_answered_at'
    | 'ship_to_address_line1'
    | 'ship_to_address_line2'
    | 'ship_to_city'
    | 'ship_to_state'
    | 'ship_to_postal_code'
  >
>;

/** The hold columns of an order leaving hold: all null (the history keeps what they said). */
export const NO_HOLD: StatusChanges = {
  hold_reason_code: null,
  hold_message: null,
  hold_waiting_on: null,
  hold_since: null,
  held_from: null,
  hold_answered_at: null,
};

/**
 * Moves an order from `from` to `to` only if it is still in `from`: the conditional update that
 * makes simultaneous transitions safe (PostgreSQL re-checks the WHERE after a concurrent commit).
 * With `bumpSequence` (the move sends an order event) it also counts the event in the same
 * statement (docs/webhooks.md#ordering). Returns the order's `event_sequence` after the update, or
 * null when another change won.
 */
export async function updateStatusIf(
  trx: Trx,
  orderId: string,
  from: OrderStatus,
  to: OrderStatus,
  at: string,
  changes: StatusChanges,
  bumpSequence = false,
): Promise<number | null> {
  const row = await trx
    .updateTable('medication_requests')
    .set({
      status: to,
      updated_at: at,
      ...changes,
      ...(bumpSequence ? { event_sequence: sql<number>`event_sequence + 1` } : {}),
    })
    .where('id', '=', orderId)
    .where('status', '=', from)
    .returning('event_sequence')
    .executeTakeFirst();
  return row === undefined ? null : Number(row.event_sequence);
}

/**
 * Counts one refill against an origin item if it has one left. Conditional, so that two refills
 * of one chain at once never exceed the prescription's refills.
 */
export async function useRefill(trx: Trx, originItemId: string): Promise<boolean> {
  const result = await trx
    .updateTable('medication_items')
    .set((eb) => ({ refills_used: eb('refills_used', '+', 1) }))
    .where('id', '=', originItemId)
    .where('do_not_refill', '=', 0)
    .where((eb) => eb('refills_used', '<', eb.ref('refills')))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives back the refills a cancelled refill order had used. */
export async function releaseRefills(trx: Trx, originItemIds: string[]): Promise<void> {
  if (originItemIds.length === 0) return;
  await trx
    .updateTable('medication_items')
    .set((eb) => ({ refills_used: eb('refills_used', '-', 1) }))
    .where('id', 'in', originItemIds)
    .where('refills_used', '>', 0)
    .execute();
}

export interface ClinicOrderFilter {
  status?: OrderStatus | undefined;
  patientId?: string | undefined;
  /** Only orders older than this position. */
  before?: PagePosition | undefined;
  limit: number;
}

/** A page of one clinic's orders, newest first, keyset-paginated on (created_at, id) (the partner's list). */
export async function listOrdersOfClinic(db: DbOrTrx, clinicId: string, filter: ClinicOrderFilter): Promise<OrderTable[]> {
  let query = db.selectFrom('medication_requests').selectAll().where('clinic_id', '=', clinicId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.patientId) query = query.where('patient_id', '=', filter.patientId);
  if (filter.before) query = query.where(olderThan({ createdAt: 'created_at', id: 'id' }, filter.before));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/**
 * The sandbox timer's work list: orders still moving whose last change is at least `before` old,
 * oldest first. Unscoped on purpose (a development-only background task).
 */
export async function listOrdersToAdvance(db: DbOrTrx, updatedBefore: string, limit: number): Promise<OrderTable[]> {
  return db
    .selectFrom('medication_requests')
    .selectAll()
    .where('status', 'in', ['pending', 'processing', 'shipped'])
    .where('updated_at', '<=', updatedBefore)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}
