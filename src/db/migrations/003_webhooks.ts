import { sql, type Kysely } from 'kysely';

/**
 * Webhook endpoints, deliveries (one per event and endpoint) and their attempts; on PostgreSQL, a
 * trigger that wakes delivery workers in every process (LISTEN webhook_wakeup) when an outbox
 * event is committed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failing_since', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_clinic_idx')
    .on('webhook_endpoints')
    .columns(['clinic_id', 'created_at'])
    .execute();
  // The same URL twice for one clinic is refused; a deleted endpoint frees its URL.
  await db.schema
    .createIndex('webhook_endpoints_clinic_url_key')
    .on('webhook_endpoints')
    .columns(['clinic_id', 'url'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('claim_token', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // Fan-out is idempotent: an event reaches an endpoint through one delivery only.
    .addUniqueConstraint('webhook_deliveries_event_endpoint_key', ['event_id', 'endpoint_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_created_idx')
    .on('webhook_deliveries')
    .columns(['created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_clinic_idx')
    .on('webhook_deliveries')
    .columns(['clinic_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_type_idx')
    .on('webhook_deliveries')
    .columns(['event_type', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_delivery_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addUniqueConstraint('webhook_delivery_attempts_number_key', ['delivery_id', 'attempt_number'])
    .execute();

  if (isPostgres(db)) {
    // Notifications are sent at commit, so a worker never wakes for an event it cannot see yet.
    // The payload is the schema, so that databases shared by several schemas wake only their own workers.
    await sql`
      create function webhook_outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('webhook_wakeup', current_schema());
        return null;
      end $$`.execute(db);
    await sql`
      create trigger outbox_events_webhook_wakeup after insert on outbox_events
      for each statement execute function webhook_outbox_notify()`.execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('The webhooks migration cannot be reverted');
}

/** The dialect, read from the compiled form of a query (PostgreSQL numbers its parameters). */
function isPostgres(db: Kysely<any>): boolean {
  return db.selectFrom('webhook_endpoints').select('id').where('id', '=', '').compile().sql.includes('$1');
}
