import type { Kysely } from 'kysely';

/**
 * What a fill keeps of its beyond-use date (issue 39, items 7, 8 and 10; docs/compounding.md#the-fill):
 * the instant for a preparation limited in hours (a USP <797> Category 1 CSP), what decided the
 * date (the standard, the entry's own days, an ingredient lot's expiry) and that lot, and the version
 * of the entry's formula the fill was made from. Fills recorded before keep null in each: what
 * decided them was not kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['beyond_use_at', 'beyond_use_basis', 'beyond_use_limiting_lot'])
    await db.schema.alterTable('medication_item_fills').addColumn(column, 'text').execute();
  await db.schema.alterTable('medication_item_fills').addColumn('formula_version', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['beyond_use_at', 'beyond_use_basis', 'beyond_use_limiting_lot', 'formula_version'])
    await db.schema.alterTable('medication_item_fills').dropColumn(column).execute();
}
