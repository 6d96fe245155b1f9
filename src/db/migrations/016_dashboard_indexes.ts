import type { Kysely } from 'kysely';

/**
 * Indexes of the operator's dashboard (issue 21, item 2; docs/console.md): each plot reads only its
 * window's rows, found by a range of one index, however many older rows the tables hold.
 *
 * - Time from order to shipped, per week: the orders shipped in the window, by `shipped_at`; the
 *   index carries `created_at` too, so neither database visits the table for them.
 * - Webhook attempts per hour: the attempts of the window, by `attempted_at`, with the response's
 *   status (success or failure) in the index.
 *
 * Orders per day are found by `medication_requests_created_idx` and orders waiting now by
 * `medication_requests_status_created_idx` (both migration 002): no new index on the orders' hot
 * write path for them.
 */
const INDEXES: [name: string, table: string, columns: string[]][] = [
  ['medication_requests_shipped_created_idx', 'medication_requests', ['shipped_at', 'created_at']],
  ['webhook_delivery_attempts_attempted_idx', 'webhook_delivery_attempts', ['attempted_at', 'response_status']],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES) {
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
