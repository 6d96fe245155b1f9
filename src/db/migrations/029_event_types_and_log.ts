import type { Kysely } from 'kysely';

/**
 * Events a partner consumes their own way (issue 31, items 6 and 7; docs/webhooks.md):
 * - `webhook_endpoints.event_types`: the event types an endpoint receives, a JSON array of names;
 *   null: every type, including types added later.
 * - The event log (`GET /api/external/events`) reads a clinic's events oldest first by
 *   (created_at, id), all of them or of one type: a page reads a range of one of these indexes,
 *   however many events the clinic holds. The first replaces migration 001's (clinic_id, created_at).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('event_types', 'text').execute();
  await db.schema
    .createIndex('outbox_events_clinic_log_idx')
    .on('outbox_events')
    .columns(['clinic_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('outbox_events_clinic_type_log_idx')
    .on('outbox_events')
    .columns(['clinic_id', 'type', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('outbox_events_clinic_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('outbox_events_clinic_idx').on('outbox_events').columns(['clinic_id', 'created_at']).execute();
  await db.schema.dropIndex('outbox_events_clinic_type_log_idx').execute();
  await db.schema.dropIndex('outbox_events_clinic_log_idx').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('event_types').execute();
}
