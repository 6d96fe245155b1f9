import type { Kysely } from 'kysely';

/**
 * Where the pharmacy may ship (issue 30, item 7; docs/shipping.md#licensed-states): one row per
 * licensed state, and a one-row marker saying the list was set (an empty list is "nowhere", which
 * differs from "never set", whose meaning depends on the environment).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('licensed_states')
    .addColumn('state_code', 'text', (c) => c.primaryKey())
    .execute();
  await db.schema
    .createTable('licensed_state_list')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('licensed_state_list').execute();
  await db.schema.dropTable('licensed_states').execute();
}
