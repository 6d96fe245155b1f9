import type { DbOrTrx, DialectName, Trx } from '../db/database.js';
import { lockRowsInOrder } from '../db/dialect.js';
import { reusableQuery } from '../db/reusable-query.js';
import { IN_USE_STATUSES, MAX_ITEMS_IN_USE, type ItemInUse } from './intake-hold.js';

const itemsInUse = reusableQuery((db, clinicId: string, patientId: string) =>
  db
    .selectFrom('medication_requests as r')
    .innerJoin('prescriptions as p', 'p.medication_request_id', 'r.id')
    .innerJoin('medication_items as i', 'i.prescription_id', 'p.id')
    .innerJoin('medications as m', 'm.id', 'i.medication_id')
    .select(['r.id as medication_request_id', 'r.chain_origin_id', 'r.status', 'r.shipped_at', 'i.days_supply', 'i.medication'])
    .select(['m.ingredients', 'm.therapeutic_class'])
    .where('r.patient_id', '=', patientId)
    .where('r.clinic_id', '=', clinicId)
    .where('r.status', 'in', [...IN_USE_STATUSES])
    .where((eb) => eb.or([eb('m.ingredients', 'is not', null), eb('m.therapeutic_class', 'is not', null)]))
    .orderBy('r.created_at', 'desc')
    .limit(MAX_ITEMS_IN_USE),
);

/**
 * The items with a formula or a therapeutic class of the patient's orders that are not final, newest
 * first, at most MAX_ITEMS_IN_USE: one query, found by `medication_requests_patient_status_idx`
 * (migration 025), then each order's prescription and items by their keys.
 */
export async function findItemsInUse(db: DbOrTrx, clinicId: string, patientId: string): Promise<ItemInUse[]> {
  return itemsInUse(db, clinicId, patientId);
}

/**
 * Takes the patient's intake lock until the transaction ends: two orders of one patient at the same
 * moment are checked one after the other, each against the other once committed (PostgreSQL locks
 * the patient's row `FOR UPDATE`; SQLite runs one transaction at a time).
 */
export async function lockPatientIntake(trx: Trx, dialect: DialectName, patientId: string): Promise<void> {
  await lockRowsInOrder(trx, dialect, 'patients', [patientId]);
}
