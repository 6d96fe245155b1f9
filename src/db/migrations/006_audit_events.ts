import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The audit trail (HIPAA §164.312(b)): one row per access to a patient, practitioner, order,
 * refill request or webhook. Append-only at the database too: triggers refuse UPDATE and DELETE
 * (and TRUNCATE on PostgreSQL), so that a bug or a careless script cannot rewrite history.
 * Indexed for the operator's list: newest first, overall and by resource, clinic and action.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('clinic_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('client_address', 'text')
    .execute();
  await db.schema.createIndex('audit_events_at_idx').on('audit_events').columns(['at', 'id']).execute();
  for (const column of ['resource_id', 'clinic_id', 'action']) {
    await db.schema.createIndex(`audit_events_${column}_idx`).on('audit_events').columns([column, 'at', 'id']).execute();
  }
  // An idempotent replay looks up what its original request touched (audit.service.ts recordReplayReads).
  await db.schema.createIndex('audit_events_request_idx').on('audit_events').columns(['request_id', 'clinic_id']).execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create or replace function audit_events_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_events is append-only: % refused', tg_op;
      end $$`.execute(db);
    await sql`
      create trigger audit_events_append_only before update or delete on audit_events
      for each row execute function audit_events_append_only()`.execute(db);
    await sql`
      create trigger audit_events_no_truncate before truncate on audit_events
      for each statement execute function audit_events_append_only()`.execute(db);
  } else {
    for (const operation of ['update', 'delete']) {
      await sql`
        create trigger ${sql.id(`audit_events_no_${operation}`)} before ${sql.raw(operation)} on audit_events
        begin
          select raise(abort, ${sql.lit(`audit_events is append-only: ${operation.toUpperCase()} refused`)});
        end`.execute(db);
    }
  }
}

export async function down(): Promise<void> {
  throw new Error('The audit trail migration cannot be reverted');
}
