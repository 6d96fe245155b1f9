import type { DbOrTrx, Trx } from '../db/database.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { RefillRequestTable } from './refill.tables.js';

export type RefillRequestStatus = 'open' | 'fulfilled' | 'cancelled';

/** A new refill request; its change fails with a unique violation when the order already has an open one (partial unique index). */
export function refillRequestInsert(change: WriteTarget, row: RefillRequestTable): Write {
  return change.statements.insertInto('refill_requests').values(row);
}

export async function findRefillRequest(
  db: DbOrTrx,
  clinicId: string,
  refillRequestId: string,
): Promise<RefillRequestTable | undefined> {
  return db
    .selectFrom('refill_requests')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('id', '=', refillRequestId)
    .executeTakeFirst();
}

/** The open refill request of an order, if any (uses the partial unique index). */
export async function findOpenRefillRequest(db: DbOrTrx, orderId: string): Promise<RefillRequestTable | undefined> {
  return db
    .selectFrom('refill_requests')
    .selectAll()
    .where('medication_request_id', '=', orderId)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

/** The refill requests that created these orders (one query on a unique column). */
export async function findRefillRequestsOfNewOrders(db: DbOrTrx, newOrderIds: string[]): Promise<RefillRequestTable[]> {
  if (newOrderIds.length === 0) return [];
  return db.selectFrom('refill_requests').selectAll().where('new_medication_request_id', 'in', newOrderIds).execute();
}

/** Closes the open refill request whose order is `newOrderId`; false when there is none. */
export async function closeRefillRequest(
  trx: Trx,
  newOrderId: string,
  status: Exclude<RefillRequestStatus, 'open'>,
  at: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('refill_requests')
    .set({ status, updated_at: at })
    .where('new_medication_request_id', '=', newOrderId)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
