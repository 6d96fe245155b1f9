import type { Kysely } from 'kysely';

/**
 * The patient's orders by status (issue 30, item 6; docs/compounding.md#allergies-and-duplicate-therapy):
 * an order with a formula is compared at intake with the patient's orders that are not final, found
 * by a range of this index per status however many orders the clinic holds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('medication_requests_patient_status_idx')
    .on('medication_requests')
    .columns(['patient_id', 'status'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('medication_requests_patient_status_idx').execute();
}
