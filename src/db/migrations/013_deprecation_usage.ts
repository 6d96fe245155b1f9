import type { Kysely } from 'kysely';

/**
 * Who still uses a deprecated route, parameter or field (issue 20, item 4): one row per registry
 * code and credential (an API key or an OAuth client), with the clinic, how many uses and when the
 * first and the last were seen. Each instance counts in memory and adds its counts in batches (an
 * upsert that adds, so that instances never overwrite each other: deprecations/usage-tally.ts).
 * No foreign keys: a credential may be of either kind, and the counts outlive a revoked key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deprecation_usage')
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('credential_type', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('clinic_id', 'text', (c) => c.notNull())
    .addColumn('use_count', 'bigint', (c) => c.notNull())
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('deprecation_usage_pkey', ['code', 'credential_type', 'credential_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deprecation_usage').execute();
}
