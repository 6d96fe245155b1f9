import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** Every column but the key, in both shapes of the table. */
const COLUMNS = [
  'clinic_id',
  'occurred_at',
  'method',
  'route',
  'status',
  'duration_ms',
  'api_key_id',
  'oauth_client_id',
  'idempotency_key',
  'error_code',
  'error_message',
];

/**
 * The request log keyed by its request's id (issue 22, item 3: the log cost about 20 % of `GET
 * carriers` on SQLite, docs/performance.md). A request id is the server's own UUIDv7 of the request's
 * arrival (http/request-id.ts), never the client's X-Request-Id, and one request has one entry: it
 * is a key already, ordered by time like the row id it replaces. So the row id and the request-id
 * index go: on SQLite four b-trees per row become two (the table is WITHOUT ROWID: the key is the
 * table; a text primary key of a rowid table is a b-tree of its own), on PostgreSQL four become
 * three. The clinic's newest-first index and the purge (by key, now the request id) are unchanged
 * in kind. Entries keep an `id` in the API: their request id.
 *
 * On SQLite the keyed table is in a database file of its own, `synchronous = OFF`
 * (db/request-log-store.ts); this migration moves the rows there and drops the main file's table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (!postgres) {
    // The keyed table is in the log's own file, attached and created when the database is opened
    // (db/request-log-store.ts: `request_log_store`, a literal here since migrations are frozen).
    // Once the main file's table is gone, the name `request_log` finds it there.
    await sql`insert into request_log_store.request_log (request_id, ${sql.join(COLUMNS.map((c) => sql.ref(c)))})
      select request_id, ${sql.join(COLUMNS.map((c) => sql.ref(c)))} from main.request_log where true
      on conflict do nothing`.execute(db);
    await sql`drop table main.request_log`.execute(db);
    return;
  }
  await db.schema
    .createTable('request_log_keyed')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('oauth_client_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .execute();
  // Entries written before: one per request id (a duplicate, which no server made, would keep its first).
  await db
    .insertInto('request_log_keyed')
    .columns(['request_id', ...COLUMNS])
    .expression(
      db
        .selectFrom('request_log')
        .select(['request_id', ...COLUMNS])
        .where(sql<boolean>`true`),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await db.schema.dropTable('request_log').execute();
  await db.schema.alterTable('request_log_keyed').renameTo('request_log').execute();
  await sql`alter index request_log_keyed_pkey rename to request_log_pkey`.execute(db);
  await db.schema
    .createIndex('request_log_clinic_at_idx')
    .on('request_log')
    .columns(['clinic_id', 'occurred_at', 'request_id'])
    .execute();
}

/** Back to migration 015's shape, in the main file on SQLite: each entry's row id is its request id. */
export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const source = postgres ? 'request_log' : 'request_log_store.request_log';
  await db.schema
    .createTable('request_log_015')
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
  await db
    .insertInto('request_log_015')
    .columns(['id', 'request_id', ...COLUMNS])
    .expression(db.selectFrom(source).select([sql.ref('request_id').as('id'), 'request_id', ...COLUMNS]))
    .execute();
  if (postgres) {
    await db.schema.dropTable('request_log').execute();
    await db.schema.alterTable('request_log_015').renameTo('request_log').execute();
    await sql`alter index request_log_015_pkey rename to request_log_pkey`.execute(db);
  } else {
    // The log's file keeps its (now empty) table: the main file's, found first, is the log again.
    await sql`delete from request_log_store.request_log`.execute(db);
    await db.schema.alterTable('request_log_015').renameTo('request_log').execute();
  }
  await db.schema
    .createIndex('request_log_clinic_at_idx')
    .on('request_log')
    .columns(['clinic_id', 'occurred_at', 'id'])
    .execute();
  await db.schema.createIndex('request_log_request_idx').on('request_log').columns(['request_id', 'clinic_id']).execute();
}
