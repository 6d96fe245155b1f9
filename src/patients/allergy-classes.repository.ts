import type { DbOrTrx } from '../db/database.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { AllergyClassTable } from './patient.tables.js';

/*
 * The operator's allergy classes (migration 035): the pharmacy's own, shared by every clinic,
 * unscoped on purpose as the licensed states are. Looked up by primary key, or all at once (a bounded
 * table: MAX_ALLERGY_CLASSES).
 */

/** Every row, by code. */
export async function listAllergyClassRows(db: DbOrTrx): Promise<AllergyClassTable[]> {
  return db.selectFrom('allergy_classes').selectAll().orderBy('code').execute();
}

/** The row of one code, or undefined. */
export async function findAllergyClassRow(db: DbOrTrx, code: string): Promise<AllergyClassTable | undefined> {
  return db.selectFrom('allergy_classes').selectAll().where('code', '=', code).executeTakeFirst();
}

/** Sets the row of its code (inserted, or replaced whole). */
export function allergyClassUpsert(change: WriteTarget, row: AllergyClassTable): Write {
  const { code: _code, ...rest } = row;
  return change.statements
    .insertInto('allergy_classes')
    .values(row)
    .onConflict((oc) => oc.column('code').doUpdateSet(rest));
}

/** Removes the row of a code. */
export function allergyClassDelete(change: WriteTarget, code: string): Write {
  return change.statements.deleteFrom('allergy_classes').where('code', '=', code);
}
