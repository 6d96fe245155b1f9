import type { Kysely } from 'kysely';

/**
 * The compounding record (issue 30, items 3, 5, 6 and 8; docs/compounding.md):
 * - `medication_item_fills`: what the pharmacy made for one item of an order (its lot, when, the
 *   beyond-use date computed then, the storage); at most one per item.
 * - `fill_ingredient_lots`: the ingredient lots a fill names, one row each, so that a supplier's
 *   recall of an ingredient lot finds every preparation made from it.
 * - `order_signoffs`: the pharmacist's two sign-offs of an order (`prescription_review`,
 *   `product_check`), at most one of each, always naming a person.
 * - patients: their allergies (JSON `[{substance, reaction, severity}]`) and "no known allergies".
 * - practitioners: the DEA number and state licences (JSON `[{state_code, number, expires_on}]`).
 *
 * Recall reads a lot's fills by `lot_number` (across clinics for staff, within a clinic for a
 * partner), then their orders by primary key: both indexes start with the lot.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('medication_item_fills')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('medication_request_id', 'text', (c) => c.notNull().references('medication_requests.id'))
    .addColumn('medication_item_id', 'text', (c) => c.notNull().unique().references('medication_items.id'))
    .addColumn('clinic_id', 'text', (c) => c.notNull())
    /** The formulary entry the item matched (null: no formula, or no entry). */
    .addColumn('medication_id', 'text')
    .addColumn('lot_number', 'text', (c) => c.notNull())
    .addColumn('compounded_at', 'text', (c) => c.notNull())
    /** YYYY-MM-DD; null for an entry without a formula (no category to count from). */
    .addColumn('beyond_use_date', 'text')
    .addColumn('storage', 'text')
    /** 1 when the development server filled the item itself on shipping (generated lots). */
    .addColumn('generated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('filled_by_id', 'text')
    .addColumn('filled_by_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('item_fills_order_idx').on('medication_item_fills').columns(['medication_request_id']).execute();
  await db.schema
    .createIndex('item_fills_lot_idx')
    .on('medication_item_fills')
    .columns(['lot_number', 'medication_request_id'])
    .execute();
  await db.schema
    .createIndex('item_fills_clinic_lot_idx')
    .on('medication_item_fills')
    .columns(['clinic_id', 'lot_number', 'medication_request_id'])
    .execute();

  await db.schema
    .createTable('fill_ingredient_lots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fill_id', 'text', (c) => c.notNull().references('medication_item_fills.id'))
    .addColumn('medication_request_id', 'text', (c) => c.notNull())
    .addColumn('clinic_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('ingredient', 'text', (c) => c.notNull())
    .addColumn('lot_number', 'text', (c) => c.notNull())
    /** YYYY-MM-DD */
    .addColumn('expires_on', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ingredient_lots_fill_idx').on('fill_ingredient_lots').columns(['fill_id', 'position']).execute();
  await db.schema
    .createIndex('ingredient_lots_lot_idx')
    .on('fill_ingredient_lots')
    .columns(['lot_number', 'medication_request_id'])
    .execute();
  await db.schema
    .createIndex('ingredient_lots_clinic_lot_idx')
    .on('fill_ingredient_lots')
    .columns(['clinic_id', 'lot_number', 'medication_request_id'])
    .execute();

  await db.schema
    .createTable('order_signoffs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('medication_request_id', 'text', (c) => c.notNull().references('medication_requests.id'))
    /** prescription_review | product_check */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** The pharmacist's staff id and name at the time. */
    .addColumn('pharmacist_id', 'text', (c) => c.notNull())
    .addColumn('pharmacist_name', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addUniqueConstraint('order_signoffs_order_kind_key', ['medication_request_id', 'kind'])
    .execute();

  await db.schema.alterTable('patients').addColumn('allergies', 'text').execute();
  await db.schema.alterTable('patients').addColumn('no_known_allergies', 'integer').execute();
  await db.schema.alterTable('practitioners').addColumn('dea_number', 'text').execute();
  await db.schema.alterTable('practitioners').addColumn('licenses', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('practitioners').dropColumn('licenses').execute();
  await db.schema.alterTable('practitioners').dropColumn('dea_number').execute();
  await db.schema.alterTable('patients').dropColumn('no_known_allergies').execute();
  await db.schema.alterTable('patients').dropColumn('allergies').execute();
  await db.schema.dropTable('order_signoffs').execute();
  await db.schema.dropTable('fill_ingredient_lots').execute();
  await db.schema.dropTable('medication_item_fills').execute();
}
