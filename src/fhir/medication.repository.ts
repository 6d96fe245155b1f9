import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { MedicationTable } from '../medications/medication.tables.js';
import type { FillIngredientLotTable } from '../compounding/compounding.tables.js';

/*
 * What the FHIR Medication resource is read from (medication.fhir.ts): a clinic's formulary entries
 * and its items' fills, always within the clinic. Each function is one query whatever the number of
 * ids, so that a page (or a page's `_include`) costs a fixed number of queries.
 */

/** Where a Medication comes from: a formulary entry (its id) or an item's fill (the fill's id). */
export type MedicationSource = 'entry' | 'fill';

export interface MedicationFilter {
  /** `_id` alternatives (undefined: any). */
  readonly ids?: readonly string[] | undefined;
}

/** The clinic's formulary entries among `ids`. */
export async function findEntries(db: DbOrTrx, clinicId: string, ids: readonly string[]): Promise<MedicationTable[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('medications').selectAll().where('clinic_id', '=', clinicId).where('id', 'in', ids).execute();
}

/** A fill with what its Medication shows: the item's medication, and its formulary entry's form and formula when the entry still exists. */
export interface FillRow {
  id: string;
  medication_request_id: string;
  lot_number: string;
  beyond_use_date: string | null;
  medication: string;
  entry_name: string | null;
  dosage_form: string | null;
  ingredients: string | null;
}

/** The clinic's fills among `ids`, each with its item and its entry (one query: the item by key, the entry by key). */
export async function findFills(db: DbOrTrx, clinicId: string, ids: readonly string[]): Promise<FillRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('medication_item_fills as f')
    .innerJoin('medication_items as i', 'i.id', 'f.medication_item_id')
    .leftJoin('medications as m', (join) => join.onRef('m.id', '=', 'f.medication_id').onRef('m.clinic_id', '=', 'f.clinic_id'))
    .select([
      'f.id',
      'f.medication_request_id',
      'f.lot_number',
      'f.beyond_use_date',
      'i.medication',
      'm.name as entry_name',
      'm.dosage_form',
      'm.ingredients',
    ])
    .where('f.clinic_id', '=', clinicId)
    .where('f.id', 'in', ids)
    .execute();
}

/** The ingredient lots of the clinic's fills among `fillIds`, each fill's in the order recorded. */
export async function findIngredientLots(
  db: DbOrTrx,
  clinicId: string,
  fillIds: readonly string[],
): Promise<FillIngredientLotTable[]> {
  if (fillIds.length === 0) return [];
  return db
    .selectFrom('fill_ingredient_lots')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('fill_id', 'in', fillIds)
    .orderBy('fill_id')
    .orderBy('position')
    .execute();
}

/** The entries' and the fills' ids of the clinic that match, each with its source: one union, filtered in each branch. */
function matches(db: DbOrTrx, clinicId: string, filter: MedicationFilter, afterId: string | null) {
  let entries = db
    .selectFrom('medications')
    .select(['id', sql<MedicationSource>`'entry'`.as('source')])
    .where('clinic_id', '=', clinicId);
  let fills = db
    .selectFrom('medication_item_fills')
    .select(['id', sql<MedicationSource>`'fill'`.as('source')])
    .where('clinic_id', '=', clinicId);
  if (filter.ids !== undefined) {
    entries = entries.where('id', 'in', filter.ids);
    fills = fills.where('id', 'in', filter.ids);
  }
  if (afterId !== null) {
    entries = entries.where('id', '>', afterId);
    fills = fills.where('id', '>', afterId);
  }
  return entries.unionAll(fills);
}

/** Up to `limit` ids of the clinic's Medications that match, ascending, strictly after `afterId`. */
export async function pageMedicationIds(
  db: DbOrTrx,
  clinicId: string,
  filter: MedicationFilter,
  page: { afterId: string | null; limit: number },
): Promise<{ id: string; source: MedicationSource }[]> {
  if (filter.ids !== undefined && filter.ids.length === 0) return [];
  return db
    .selectFrom(matches(db, clinicId, filter, page.afterId).as('m'))
    .select(['m.id', 'm.source'])
    .orderBy('m.id')
    .limit(page.limit)
    .execute();
}

/** How many of the clinic's Medications match (entries and fills), in one query. */
export async function countMedications(db: DbOrTrx, clinicId: string, filter: MedicationFilter): Promise<number> {
  if (filter.ids !== undefined && filter.ids.length === 0) return 0;
  const row = await db
    .selectFrom(matches(db, clinicId, filter, null).as('m'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
