import type { DbOrTrx, Trx } from '../db/database.js';
import { insertRows } from '../db/row-insert.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { OrderHoldTable } from './hold.tables.js';

/* The holds of orders, one row each (migration 034; docs/orders.md#holds). */

/** A new hold's row, written with the change's other rows (a hold at intake). */
export function holdInsert(change: WriteTarget, row: OrderHoldTable): Write {
  return insertRows(change.statements, 'order_holds', [row]);
}

/** A new hold, at once (the stack is read again in the same change). A second open hold of one reason breaks `order_holds_open_reason_key`. */
export async function insertHold(trx: Trx, row: OrderHoldTable): Promise<void> {
  await trx.insertInto('order_holds').values(row).execute();
}

/** The open holds of an order, oldest first. */
export async function listOpenHolds(db: DbOrTrx, orderId: string): Promise<OrderHoldTable[]> {
  return db
    .selectFrom('order_holds')
    .selectAll()
    .where('medication_request_id', '=', orderId)
    .where('resolved_at', 'is', null)
    .orderBy('opened_at')
    .orderBy('id')
    .execute();
}

/** The open holds of several orders, oldest first: one query by `order_holds_order_idx`. */
export async function listOpenHoldsOfOrders(db: DbOrTrx, orderIds: readonly string[]): Promise<OrderHoldTable[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('order_holds')
    .selectAll()
    .where('medication_request_id', 'in', [...orderIds])
    .where('resolved_at', 'is', null)
    .orderBy('opened_at')
    .orderBy('id')
    .execute();
}

/** How a hold was resolved, and by whom. */
export type Resolution = Pick<
  OrderHoldTable,
  'resolved_at' | 'resolution' | 'resolved_by' | 'resolved_by_id' | 'resolved_by_name' | 'override_reason'
>;

/**
 * Resolves the holds `ids` of the order that are still open; returns how many it resolved (fewer
 * than asked: another change resolved some first).
 */
export async function resolveHoldsIf(trx: Trx, orderId: string, ids: readonly string[], resolution: Resolution): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx
    .updateTable('order_holds')
    .set(resolution)
    .where('medication_request_id', '=', orderId)
    .where('id', 'in', [...ids])
    .where('resolved_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The partner answered: every open hold of the order records it; the ones that waited on the partner now wait on the pharmacy. */
export async function markAnswered(trx: Trx, orderId: string, at: string): Promise<void> {
  await trx
    .updateTable('order_holds')
    .set({ answered_at: at, waiting_on: 'pharmacy' })
    .where('medication_request_id', '=', orderId)
    .where('resolved_at', 'is', null)
    .execute();
}

/** One hold of the order, open or resolved. */
export async function findHold(db: DbOrTrx, orderId: string, holdId: string): Promise<OrderHoldTable | undefined> {
  return db
    .selectFrom('order_holds')
    .selectAll()
    .where('medication_request_id', '=', orderId)
    .where('id', '=', holdId)
    .executeTakeFirst();
}

/** The order is cancelled: its open holds close with it (`cancel`; the cancellation's history row says who). */
export async function closeOpenHolds(trx: Trx, orderId: string, at: string): Promise<void> {
  await trx
    .updateTable('order_holds')
    .set({ resolved_at: at, resolution: 'cancel' })
    .where('medication_request_id', '=', orderId)
    .where('resolved_at', 'is', null)
    .execute();
}
