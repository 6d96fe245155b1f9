import type { Write, WriteTarget } from '../db/write.js';
import { insertRows } from '../db/row-insert.js';
import type { DbOrTrx } from '../db/database.js';
import type { PatientTable } from './patient.tables.js';
import { reusableQuery } from '../db/reusable-query.js';

export function patientInsert(change: WriteTarget, row: PatientTable): Write {
  return insertRows(change.statements, 'patients', [row]);
}

/** Replaces the patient's allergies (patient.service.ts replaceAllergies). */
export function allergiesUpdate(
  change: WriteTarget,
  clinicId: string,
  patientId: string,
  columns: Required<Pick<PatientTable, 'allergies' | 'no_known_allergies'>>,
): Write {
  return change.statements.updateTable('patients').set(columns).where('clinic_id', '=', clinicId).where('id', '=', patientId);
}

/**
 * A patient of the clinic, or undefined: another clinic's patient is simply not found
 * (no leak of its existence). Uses the (clinic_id, id) index.
 */
export async function findPatient(db: DbOrTrx, clinicId: string, patientId: string): Promise<PatientTable | undefined> {
  return (await patientOfClinic(db, clinicId, patientId))[0];
}

const patientOfClinic = reusableQuery((db, clinicId: string, patientId: string) =>
  db.selectFrom('patients').selectAll().where('clinic_id', '=', clinicId).where('id', '=', patientId),
);
