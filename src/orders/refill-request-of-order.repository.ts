import type { DbOrTrx, Trx } from '../db/database.js';

/*
 * What an order reads of, and does to, the refill request that created it. The refill request is the
 * refills feature's (refills/), which builds on orders; these two queries are the orders' side of it,
 * so that orders never import refills (test/architecture/folder-cycles.test.ts).
 */

/** The refill requests that created these orders: their ids, by new order (one query on a unique column). */
export async function findRefillRequestsOfNewOrders(
  db: DbOrTrx,
  newOrderIds: string[],
): Promise<{ id: string; new_medication_request_id: string }[]> {
  if (newOrderIds.length === 0) return [];
  return db
    .selectFrom('refill_requests')
    .select(['id', 'new_medication_request_id'])
    .where('new_medication_request_id', 'in', newOrderIds)
    .execute();
}

/** Closes the open refill request whose order is `newOrderId` (it shipped, was delivered or was cancelled); false when there is none. */
export async function closeRefillRequest(
  trx: Trx,
  newOrderId: string,
  status: 'fulfilled' | 'cancelled',
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
