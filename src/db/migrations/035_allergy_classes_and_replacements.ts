import type { Kysely } from 'kysely';

/**
 * Every ingredient checked, and duplicate therapy by class (issue 39, items 5 and 6;
 * docs/compounding.md#allergies-and-duplicate-therapy):
 * - `allergy_classes`: the operator's own allergy classes, one row per class code, merged over the
 *   documented defaults of src/patients/allergy-classes.ts (a row replaces the default of its code,
 *   or adds a class). `names` and `members` are JSON arrays of text. The pharmacy's own, shared by
 *   every clinic, as the licensed states are.
 * - `medication_items.replaces_medication_request_id`: the patient's order an item replaces (a
 *   titration step, a switch of drug); null for every item before, and for an item that replaces none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('allergy_classes')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('names', 'text', (c) => c.notNull())
    .addColumn('members', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('medication_items').addColumn('replaces_medication_request_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('medication_items').dropColumn('replaces_medication_request_id').execute();
  await db.schema.dropTable('allergy_classes').execute();
}
