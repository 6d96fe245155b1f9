import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Names the medications of a medication request as the spec does ("medication item"; see the
 * glossary in docs/orders.md): `prescription_items` becomes `medication_items`. Both databases keep
 * the table's rows, indexes, constraints and the foreign keys that point at it; on PostgreSQL the
 * constraints take the new name too (SQLite's are unnamed).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('prescription_items').renameTo('medication_items').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const suffix of ['pkey', 'position_key', 'prescription_id_fkey']) {
      await sql`alter table medication_items rename constraint ${sql.id(`prescription_items_${suffix}`)} to ${sql.id(`medication_items_${suffix}`)}`.execute(
        db,
      );
    }
  }
}

export async function down(): Promise<void> {
  throw new Error('The medication items migration cannot be reverted');
}
