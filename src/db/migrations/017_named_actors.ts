import type { Kysely } from 'kysely';

/**
 * Named people everywhere (issue 21, item 3). An order's status history names who made each change
 * (`actor_id`: a staff member's id; `actor_name`: their name, "Operator token" for the shared
 * ADMIN_TOKEN, or the command line's operator), and the audit trail keeps the actor's name beside
 * its id (`actor_name`). Both nullable: rows written before say only what they said then.
 * The audit page filters by actor type and resource type over a date range: indexed so.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('medication_request_status_history').addColumn('actor_id', 'text').execute();
  await db.schema.alterTable('medication_request_status_history').addColumn('actor_name', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('actor_name', 'text').execute();
  await db.schema
    .createIndex('audit_events_actor_type_idx')
    .on('audit_events')
    .columns(['actor_type', 'actor_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_resource_type_idx')
    .on('audit_events')
    .columns(['resource_type', 'at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_events_resource_type_idx').execute();
  await db.schema.dropIndex('audit_events_actor_type_idx').execute();
  await db.schema.alterTable('audit_events').dropColumn('actor_name').execute();
  await db.schema.alterTable('medication_request_status_history').dropColumn('actor_name').execute();
  await db.schema.alterTable('medication_request_status_history').dropColumn('actor_id').execute();
}
