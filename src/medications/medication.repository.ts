import type { Write, WriteTarget } from '../db/write.js';
import type { DbOrTrx, DialectName, Trx } from '../db/database.js';
import { forUpdate } from '../db/dialect.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { FormulaVersionTable, MedicationTable } from './medication.tables.js';

/** A formulary entry's row, as a change's write (changes/run-change.ts). */
export function medicationInsert(change: WriteTarget, row: MedicationTable): Write {
  return change.statements.insertInto('medications').values(row);
}

export async function listMedications(db: DbOrTrx, clinicId: string): Promise<MedicationTable[]> {
  return db.selectFrom('medications').selectAll().where('clinic_id', '=', clinicId).orderBy('name_key').execute();
}

/** A page of the clinic's formulary, newest first (keyset on created_at, id). */
export async function listMedicationsPage(
  db: DbOrTrx,
  clinicId: string,
  page: { before?: PagePosition | undefined; limit: number },
): Promise<MedicationTable[]> {
  let query = db.selectFrom('medications').selectAll().where('clinic_id', '=', clinicId);
  if (page.before) query = query.where(olderThan({ createdAt: 'created_at', id: 'id' }, page.before));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

/** The clinic's formulary entries among `keys` (one query for a whole order). */
export async function findMedicationsByKeys(db: DbOrTrx, clinicId: string, keys: string[]): Promise<MedicationTable[]> {
  if (keys.length === 0) return [];
  return byKeyCount(keys.length)(db, clinicId, ...keys);
}

/**
 * The lookup compiled once per number of keys (an order holds at most 20 items, so at most 20 of
 * them): `in (?, …)` has one parameter per key, and reusableQuery binds fixed arities only.
 */
const byKeys = new Map<number, (db: DbOrTrx, clinicId: string, ...keys: string[]) => Promise<MedicationTable[]>>();
function byKeyCount(count: number): (db: DbOrTrx, clinicId: string, ...keys: string[]) => Promise<MedicationTable[]> {
  let query = byKeys.get(count);
  if (query === undefined) {
    query = reusableQuery((db, clinicId: string, ...keys: string[]) =>
      db.selectFrom('medications').selectAll().where('clinic_id', '=', clinicId).where('name_key', 'in', keys),
    );
    byKeys.set(count, query);
  }
  return query;
}

export async function deleteMedication(db: DbOrTrx, clinicId: string, medicationId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('medications')
    .where('clinic_id', '=', clinicId)
    .where('id', '=', medicationId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** One entry of the clinic's formulary, locked for the change that reads it (PostgreSQL; SQLite's writer is alone). */
export async function findMedicationForUpdate(
  trx: Trx,
  clinicId: string,
  medicationId: string,
  dialect: DialectName,
): Promise<MedicationTable | undefined> {
  const query = trx.selectFrom('medications').selectAll().where('clinic_id', '=', clinicId).where('id', '=', medicationId);
  return forUpdate(query, dialect).executeTakeFirst();
}

/** Writes every column of an entry but its ids and creation time. */
export async function updateMedicationRow(trx: Trx, row: MedicationTable): Promise<void> {
  const { id, clinic_id, created_at: _createdAt, ...columns } = row;
  await trx.updateTable('medications').set(columns).where('clinic_id', '=', clinic_id).where('id', '=', id).execute();
}

/** A formula version's snapshot, as a change's write. */
export function formulaVersionInsert(change: WriteTarget, row: FormulaVersionTable): Write {
  return change.statements.insertInto('formula_versions').values(row);
}

/** An entry's formula versions, first first. */
export async function listFormulaVersions(db: DbOrTrx, clinicId: string, medicationId: string): Promise<FormulaVersionTable[]> {
  return db
    .selectFrom('formula_versions')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('medication_id', '=', medicationId)
    .orderBy('version')
    .execute();
}
