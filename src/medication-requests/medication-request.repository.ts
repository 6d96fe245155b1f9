import type { DbOrTrx, Trx } from '../db/database.js';
import type { Write } from '../db/write-together.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type {
  MedicationRequestTable,
  MedicationItemTable,
  PrescriptionTable,
  StatusHistoryTable,
} from './medication-request.tables.js';
import type { MedicationRequestStatus } from './medication-request-status.js';

export function medicationRequestInsert(handle: DbOrTrx, row: MedicationRequestTable): Write {
  return handle.insertInto('medication_requests').values(row);
}

export function prescriptionInsert(handle: DbOrTrx, row: PrescriptionTable): Write {
  return handle.insertInto('prescriptions').values(row);
}

export function itemsInsert(handle: DbOrTrx, items: MedicationItemTable[]): Write {
  return handle.insertInto('medication_items').values(items);
}

export function historyInsert(handle: DbOrTrx, row: StatusHistoryTable): Write {
  return handle.insertInto('medication_request_status_history').values(row);
}

export async function insertHistory(trx: Trx, row: StatusHistoryTable): Promise<void> {
  await trx.executeQuery(historyInsert(trx, row).compile());
}

/** One of the clinic's orders; another clinic's is not found. Primary key lookup. */
export async function findMedicationRequest(
  db: DbOrTrx,
  clinicId: string,
  medicationRequestId: string,
): Promise<MedicationRequestTable | undefined> {
  return db
    .selectFrom('medication_requests')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('id', '=', medicationRequestId)
    .executeTakeFirst();
}

/** The operator's and the sandbox timer's lookup: unscoped on purpose (they act for the pharmacy). */
export async function findMedicationRequestUnscoped(
  db: DbOrTrx,
  medicationRequestId: string,
): Promise<MedicationRequestTable | undefined> {
  return db.selectFrom('medication_requests').selectAll().where('id', '=', medicationRequestId).executeTakeFirst();
}

export async function findPrescriptionOfMedicationRequest(
  db: DbOrTrx,
  medicationRequestId: string,
): Promise<PrescriptionTable | undefined> {
  return db.selectFrom('prescriptions').selectAll().where('medication_request_id', '=', medicationRequestId).executeTakeFirst();
}

/** The items of an order's prescription, in the order they were written (one query). */
export async function listItemsOfMedicationRequest(db: DbOrTrx, medicationRequestId: string): Promise<MedicationItemTable[]> {
  return db
    .selectFrom('medication_items')
    .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
    .selectAll('medication_items')
    .where('prescriptions.medication_request_id', '=', medicationRequestId)
    .orderBy('medication_items.position')
    .execute();
}

/** The prescriptions of several orders (one query on a unique column). */
export async function findPrescriptionsOfMedicationRequests(
  db: DbOrTrx,
  medicationRequestIds: string[],
): Promise<PrescriptionTable[]> {
  if (medicationRequestIds.length === 0) return [];
  return db.selectFrom('prescriptions').selectAll().where('medication_request_id', 'in', medicationRequestIds).execute();
}

/** The items of several orders, each with its order's id, in the order they were written (one query). */
export async function listItemsOfMedicationRequests(
  db: DbOrTrx,
  medicationRequestIds: string[],
): Promise<(MedicationItemTable & { medication_request_id: string })[]> {
  if (medicationRequestIds.length === 0) return [];
  return db
    .selectFrom('medication_items')
    .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
    .selectAll('medication_items')
    .select('prescriptions.medication_request_id')
    .where('prescriptions.medication_request_id', 'in', medicationRequestIds)
    .orderBy('medication_items.position')
    .execute();
}

/** Items by id (the origin items of a chain, which hold its refill counters). */
export async function findItems(db: DbOrTrx, itemIds: string[]): Promise<MedicationItemTable[]> {
  if (itemIds.length === 0) return [];
  return db.selectFrom('medication_items').selectAll().where('id', 'in', itemIds).orderBy('position').execute();
}

/** The status history of several orders (one query), each order's rows in the order they were written. */
export async function listHistories(db: DbOrTrx, medicationRequestIds: string[]): Promise<StatusHistoryTable[]> {
  if (medicationRequestIds.length === 0) return [];
  return db
    .selectFrom('medication_request_status_history')
    .selectAll()
    .where('medication_request_id', 'in', medicationRequestIds)
    .orderBy('at')
    .orderBy('id')
    .execute();
}

export type StatusChanges = Partial<
  Pick<MedicationRequestTable, 'tracking_number' | 'shipped_at' | 'delivered_at' | 'cancelled_at'>
>;

/**
 * Moves an order from `from` to `to` only if it is still in `from`: the conditional update that
 * makes simultaneous transitions safe (PostgreSQL re-checks the WHERE after a concurrent commit).
 * Returns false when another change won.
 */
export async function updateStatusIf(
  trx: Trx,
  medicationRequestId: string,
  from: MedicationRequestStatus,
  to: MedicationRequestStatus,
  at: string,
  changes: StatusChanges,
): Promise<boolean> {
  const result = await trx
    .updateTable('medication_requests')
    .set({ status: to, updated_at: at, ...changes })
    .where('id', '=', medicationRequestId)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
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
  status?: MedicationRequestStatus | undefined;
  patientId?: string | undefined;
  /** Only orders older than this position. */
  before?: PagePosition | undefined;
  limit: number;
}

/** A page of one clinic's orders, newest first, keyset-paginated on (created_at, id) (the partner's list). */
export async function listMedicationRequestsOfClinic(
  db: DbOrTrx,
  clinicId: string,
  filter: ClinicOrderFilter,
): Promise<MedicationRequestTable[]> {
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
export async function listMedicationRequestsToAdvance(
  db: DbOrTrx,
  updatedBefore: string,
  limit: number,
): Promise<MedicationRequestTable[]> {
  return db
    .selectFrom('medication_requests')
    .selectAll()
    .where('status', 'in', ['pending', 'processing', 'shipped'])
    .where('updated_at', '<=', updatedBefore)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}
