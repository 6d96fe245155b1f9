import type { Write, WriteTarget } from '../db/write.js';
import { insertRows } from '../db/row-insert.js';
import type { DbOrTrx, Trx } from '../db/database.js';
import type { PractitionerTable } from './practitioner.tables.js';
import type { CredentialColumns } from './credentials.js';
import { reusableQuery } from '../db/reusable-query.js';

export function practitionerInsert(change: WriteTarget, row: PractitionerTable): Write {
  return insertRows(change.statements, 'practitioners', [row]);
}

/**
 * A practitioner of the clinic, or undefined: another clinic's practitioner is simply not found
 * (no leak of its existence). Uses the (clinic_id, id) index.
 */
export async function findPractitioner(
  db: DbOrTrx,
  clinicId: string,
  practitionerId: string,
): Promise<PractitionerTable | undefined> {
  return (await practitionerOfClinic(db, clinicId, practitionerId))[0];
}

const practitionerOfClinic = reusableQuery((db, clinicId: string, practitionerId: string) =>
  db.selectFrom('practitioners').selectAll().where('clinic_id', '=', clinicId).where('id', '=', practitionerId),
);

/**
 * Replaces a practitioner's credentials (PUT …/credentials) as one conditional update, scoped to the
 * clinic: false when no practitioner of the clinic has this id.
 */
export async function updateCredentials(
  trx: Trx,
  clinicId: string,
  practitionerId: string,
  columns: CredentialColumns,
): Promise<boolean> {
  const result = await trx
    .updateTable('practitioners')
    .set(columns)
    .where('clinic_id', '=', clinicId)
    .where('id', '=', practitionerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
