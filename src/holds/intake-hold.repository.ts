import type { DbOrTrx } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import { IN_USE_STATUSES, MAX_ITEMS_IN_USE, type ItemInUse } from './intake-hold.js';

const itemsInUse = reusableQuery((db, clinicId: string, patientId: string) =>
  db
    .selectFrom('medication_requests as r')
    .innerJoin('prescriptions as p', 'p.medication_request_id', 'r.id')
    .innerJoin('medication_items as i', 'i.prescription_id', 'p.id')
    .innerJoin('medications as m', 'm.id', 'i.medication_id')
    .select(['r.id as medication_request_id', 'r.chain_origin_id', 'r.status', 'r.shipped_at', 'i.days_supply', 'i.medication'])
    .select('m.ingredients')
    .where('r.patient_id', '=', patientId)
    .where('r.clinic_id', '=', clinicId)
    .where('r.status', 'in', [...IN_USE_STATUSES])
    .where('m.ingredients', 'is not', null)
    .orderBy('r.created_at', 'desc')
    .limit(MAX_ITEMS_IN_USE),
);

/**
 * The items with a formula of the patient's orders that are not final, newest first, at most
 * MAX_ITEMS_IN_USE: one query, found by `medication_requests_patient_status_idx` (migration 025),
 * then each order's prescription and items by their keys.
 */
export async function findItemsInUse(db: DbOrTrx, clinicId: string, patientId: string): Promise<ItemInUse[]> {
  const rows = await itemsInUse(db, clinicId, patientId);
  return rows.flatMap((row) => (row.ingredients === null ? [] : [{ ...row, ingredients: row.ingredients }]));
}
