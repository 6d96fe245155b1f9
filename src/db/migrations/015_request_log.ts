import type { Kysely } from 'kysely';

/**
 * The partner request log (issue 22, item 3): one row per answered request of an authenticated
 * partner, its metadata only (never a body, a query value or a header that could hold PHI or a
 * secret: request-log/request-log-entry.ts), kept REQUEST_LOG_RETENTION_DAYS (default 14) and purged
 * on schedule. Written in batches off the request's path (request-log/request-log-buffer.ts).
 * Indexed for the clinic's searches: newest first (with the route or the status as a filter, the
 * same range scan), and one request by its id. The purge needs no index of its own: a row's id is
 * a UUIDv7 of its `occurred_at` millisecond, so the primary key orders rows by age. Each index is a
 * cost of every row written. No foreign keys: rows outlive a revoked key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('request_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('oauth_client_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .execute();
  await db.schema
    .createIndex('request_log_clinic_at_idx')
    .on('request_log')
    .columns(['clinic_id', 'occurred_at', 'id'])
    .execute();
  await db.schema.createIndex('request_log_request_idx').on('request_log').columns(['request_id', 'clinic_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('request_log').execute();
}
