import type { DbOrTrx, Trx } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import { insertRows } from '../db/row-insert.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { FillIngredientLotTable, MedicationItemFillTable } from './compounding.tables.js';

/* The fills of an order's items (migration 024; docs/compounding.md#the-fill). */

export function fillsInsert(change: WriteTarget, rows: MedicationItemFillTable[]): Write {
  return insertRows(change.statements, 'medication_item_fills', rows);
}

export function ingredientLotsInsert(change: WriteTarget, rows: FillIngredientLotTable[]): Write {
  return insertRows(change.statements, 'fill_ingredient_lots', rows);
}

/**
 * Marks the order changed (`updated_at`) if it is still in one of `statuses`: the fill's status
 * check as one conditional UPDATE, which also holds the order's row until the fill commits, so that
 * a move to `shipped` (itself an UPDATE of that row, then the fill check) sees the fill or refuses it.
 */
export async function touchOrderIf(trx: Trx, orderId: string, statuses: readonly string[], at: string): Promise<boolean> {
  const result = await trx
    .updateTable('medication_requests')
    .set({ updated_at: at })
    .where('id', '=', orderId)
    .where('status', 'in', statuses)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** An item of an order with what a fill needs: its formulary entry's formula, and its fill when it has one. */
export interface ItemToFill {
  id: string;
  position: number;
  medication: string;
  medication_id: string | null;
  /** The formulary entry's name (null: the entry is gone, or the item matched none). */
  entry_name: string | null;
  ingredients: string | null;
  preparation: string | null;
  bud_category: string | null;
  storage: string | null;
  beyond_use_days: number | null;
  /** The entry's USP <797> condition (medications/sterile-condition.ts) and its formula's version. */
  sterile_category: number | null;
  sterile_preparation: string | null;
  sterile_nonsterile_component: number | null;
  sterile_tested: number | null;
  sterile_defaulted: number | null;
  formula_version: number | null;
  fill: MedicationItemFillTable | null;
}

/**
 * The items of an order, in the order's order, each with its entry's formula and its fill: one
 * query (the item's prescription, its entry by primary key, its fill by the unique item key).
 */
export async function listItemsToFill(db: DbOrTrx, orderId: string): Promise<ItemToFill[]> {
  const rows = await itemsToFill(db, orderId);
  return rows.map((row) => ({
    id: row.id,
    position: row.position,
    medication: row.medication,
    medication_id: row.medication_id,
    entry_name: row.entry_name,
    ingredients: row.ingredients,
    preparation: row.preparation,
    bud_category: row.bud_category,
    storage: row.storage,
    beyond_use_days: row.beyond_use_days,
    sterile_category: row.sterile_category,
    sterile_preparation: row.sterile_preparation,
    sterile_nonsterile_component: row.sterile_nonsterile_component,
    sterile_tested: row.sterile_tested,
    sterile_defaulted: row.sterile_defaulted,
    formula_version: row.formula_version,
    fill:
      row.fill_id === null
        ? null
        : {
            id: row.fill_id,
            medication_request_id: orderId,
            medication_item_id: row.id,
            clinic_id: row.fill_clinic_id ?? '',
            medication_id: row.medication_id,
            lot_number: row.fill_lot_number ?? '',
            compounded_at: row.fill_compounded_at ?? '',
            beyond_use_date: row.fill_beyond_use_date,
            beyond_use_at: row.fill_beyond_use_at,
            beyond_use_basis: row.fill_beyond_use_basis,
            beyond_use_limiting_lot: row.fill_beyond_use_limiting_lot,
            formula_version: row.fill_formula_version,
            storage: row.fill_storage,
            generated: row.fill_generated ?? 0,
            filled_by_id: row.fill_filled_by_id,
            filled_by_name: row.fill_filled_by_name,
            created_at: row.fill_created_at ?? '',
          },
  }));
}

const itemsToFill = reusableQuery((db, orderId: string) =>
  db
    .selectFrom('medication_items')
    .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
    .leftJoin('medications', 'medications.id', 'medication_items.medication_id')
    .leftJoin('medication_item_fills', 'medication_item_fills.medication_item_id', 'medication_items.id')
    .select([
      'medication_items.id',
      'medication_items.position',
      'medication_items.medication',
      'medication_items.medication_id',
      'medications.name as entry_name',
      'medications.ingredients',
      'medications.preparation',
      'medications.bud_category',
      'medications.storage',
      'medications.beyond_use_days',
      'medications.sterile_category',
      'medications.sterile_preparation',
      'medications.sterile_nonsterile_component',
      'medications.sterile_tested',
      'medications.sterile_defaulted',
      'medications.formula_version',
      'medication_item_fills.id as fill_id',
      'medication_item_fills.clinic_id as fill_clinic_id',
      'medication_item_fills.lot_number as fill_lot_number',
      'medication_item_fills.compounded_at as fill_compounded_at',
      'medication_item_fills.beyond_use_date as fill_beyond_use_date',
      'medication_item_fills.beyond_use_at as fill_beyond_use_at',
      'medication_item_fills.beyond_use_basis as fill_beyond_use_basis',
      'medication_item_fills.beyond_use_limiting_lot as fill_beyond_use_limiting_lot',
      'medication_item_fills.formula_version as fill_formula_version',
      'medication_item_fills.storage as fill_storage',
      'medication_item_fills.generated as fill_generated',
      'medication_item_fills.filled_by_id as fill_filled_by_id',
      'medication_item_fills.filled_by_name as fill_filled_by_name',
      'medication_item_fills.created_at as fill_created_at',
    ])
    .where('prescriptions.medication_request_id', '=', orderId)
    .orderBy('medication_items.position'),
);

/** The ingredient lots of some fills (by the fill's index), each fill's in the order given. */
export async function listIngredientLotsOfFills(db: DbOrTrx, fillIds: string[]): Promise<FillIngredientLotTable[]> {
  if (fillIds.length === 0) return [];
  return db
    .selectFrom('fill_ingredient_lots')
    .selectAll()
    .where('fill_id', 'in', fillIds)
    .orderBy('fill_id')
    .orderBy('position')
    .execute();
}
