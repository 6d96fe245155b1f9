import type { Kysely } from 'kysely';

/**
 * Idempotency keys of partner POST requests (issue 8, item 3; docs/idempotency.md): one row per
 * clinic, route and key, claimed atomically by its first request (INSERT … ON CONFLICT DO NOTHING
 * on the unique scope), then holding that request's response for 24 hours.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lock_token', 'text', (c) => c.notNull())
    .addColumn('locked_at', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_content_type', 'text')
    // Sealed with the data encryption key (AES-256-GCM, see src/secrets/keyring.ts): it may hold PHI or a webhook secret.
    .addColumn('response_body', 'text')
    .addColumn('response_key_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // The scope of a key: the claim's ON CONFLICT target, so two instances never both run a key.
    .addUniqueConstraint('idempotency_keys_scope_key', ['clinic_id', 'route', 'idempotency_key'])
    .execute();
  // The purge deletes by expiry.
  await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
