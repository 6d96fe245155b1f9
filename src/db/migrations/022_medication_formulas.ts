import type { Kysely } from 'kysely';

/**
 * A formula for each formulary entry (issue 30, item 1; docs/compounding.md#storage). Columns of
 * the entry itself, all null for an entry made before (no formula): the ingredients and the
 * restricted states as JSON text (a bounded list, always read and written with the entry, never
 * searched by SQL), the rest as plain columns.
 */
const TEXT_COLUMNS = ['ingredients', 'preparation', 'bud_category', 'storage', 'controlled_schedule', 'restricted_states'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of TEXT_COLUMNS) await db.schema.alterTable('medications').addColumn(column, 'text').execute();
  await db.schema.alterTable('medications').addColumn('beyond_use_days', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of [...TEXT_COLUMNS, 'beyond_use_days'])
    await db.schema.alterTable('medications').dropColumn(column).execute();
}
