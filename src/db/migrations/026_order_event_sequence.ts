import type { Kysely } from 'kysely';

/**
 * The order's event counter (issue 31, item 8; docs/webhooks.md#ordering): every event of an order
 * carries `sequence`, this column after the event's increment, so that a receiver can put the
 * order's events in order. Orders placed before it start from 0: their next event is sequence 1.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('medication_requests')
    .addColumn('event_sequence', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('medication_requests').dropColumn('event_sequence').execute();
}
