import type { DbOrTrx } from '../db/database.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { RefillRequestTable } from './refill.tables.js';

/*
 * The refill requests as the refills feature reads and writes them. An order closes the one that
 * created it, and shows its id, through orders/refill-request-of-order.repository.ts.
 */

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
