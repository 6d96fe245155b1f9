import type { DbOrTrx, Trx } from '../db/database.js';
import type { RefillRequestTable } from './medication-request.tables.js';

export type RefillRequestStatus = 'open' | 'fulfilled' | 'cancelled';

/** Throws a unique violation when the order already has an open refill request (partial unique index). */
export async function insertRefillRequest(trx: Trx, row: RefillRequestTable): Promise<void> {
  await trx.insertInto('refill_requests').values(row).execute();
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
export async function findOpenRefillRequest(db: DbOrTrx, medicationRequestId: string): Promise<RefillRequestTable | undefined> {
  return db
    .selectFrom('refill_requests')
    .selectAll()
    .where('medication_request_id', '=', medicationRequestId)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

/** The refill requests that created these orders (one query on a unique column). */
export async function findRefillRequestsOfNewMedicationRequests(
  db: DbOrTrx,
  newMedicationRequestIds: string[],
): Promise<RefillRequestTable[]> {
  if (newMedicationRequestIds.length === 0) return [];
  return db.selectFrom('refill_requests').selectAll().where('new_medication_request_id', 'in', newMedicationRequestIds).execute();
}

/** Closes the open refill request whose order is `newMedicationRequestId`; false when there is none. */
export async function closeRefillRequest(
  trx: Trx,
  newMedicationRequestId: string,
  status: Exclude<RefillRequestStatus, 'open'>,
  at: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('refill_requests')
    .set({ status, updated_at: at })
    .where('new_medication_request_id', '=', newMedicationRequestId)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
