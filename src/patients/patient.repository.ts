import type { DbOrTrx } from '../db/database.js';
import type { PatientTable } from './patient.tables.js';

export async function insertPatient(db: DbOrTrx, row: PatientTable): Promise<void> {
  await db.insertInto('patients').values(row).execute();
}

/**
 * A patient of the clinic, or undefined: another clinic's patient is simply not found
 * (no leak of its existence). Uses the (clinic_id, id) index.
 */
export async function findPatient(db: DbOrTrx, clinicId: string, patientId: string): Promise<PatientTable | undefined> {
  return db.selectFrom('patients').selectAll().where('clinic_id', '=', clinicId).where('id', '=', patientId).executeTakeFirst();
}
