import type { Kysely } from 'kysely';

/**
 * Names the medications of a medication request as the spec does ("medication item"; see the
 * glossary in docs/orders.md): `prescription_items` becomes `medication_items`. Both databases keep
 * the table's rows, indexes, constraints and the foreign keys that point at it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('prescription_items').renameTo('medication_items').execute();
}

export async function down(): Promise<void> {
  throw new Error('The medication items migration cannot be reverted');
}
