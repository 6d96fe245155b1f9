import { sql, type Kysely } from 'kysely';

/**
 * The delivery engine of issue 18: each endpoint is a queue of its own that one worker at a time
 * owns (a lease on the endpoint row), with the partner's limits and the receiver's push-back.
 *
 * - `max_in_flight` (1–50, default 10) and `max_per_second` (null: no limit): the partner's limits,
 *   enforced by the worker that owns the endpoint, so they hold across every worker.
 * - `next_due_at`: when the endpoint has a delivery to attempt at the earliest (never later than the
 *   truth; null when nothing is pending), so that a claim finds work by one index range instead of
 *   scanning deliveries. `paused_until`: the receiver asked us to wait (429/503 `Retry-After`).
 * - `lease_token`, `leased_until`: the worker that owns the endpoint, until when.
 * - Attempts record whether the receiver throttled (`throttled`): shown in the delivery log, and not
 *   held against the endpoint's health.
 *
 * A leased delivery's `next_attempt_at` becomes its lease's end (a visibility timeout): what is due
 * is then just `status = 'pending' and next_attempt_at <= now`, on one index per endpoint.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('max_in_flight', 'integer', (c) => c.notNull().defaultTo(10))
    .execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('max_per_second', 'integer').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('next_due_at', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('paused_until', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('lease_token', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('leased_until', 'text').execute();
  await db.schema
    .alterTable('webhook_delivery_attempts')
    .addColumn('throttled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // Deliveries leased when this migration runs: due when their lease ends, as the new rule says.
  await sql`
    update webhook_deliveries set next_attempt_at = claimed_until
    where status = 'pending' and claimed_until is not null and claimed_until > next_attempt_at`.execute(db);
  await sql`
    update webhook_endpoints set next_due_at = (
      select min(d.next_attempt_at) from webhook_deliveries d
      where d.endpoint_id = webhook_endpoints.id and d.status = 'pending'
    )`.execute(db);

  await db.schema.createIndex('webhook_endpoints_next_due_idx').on('webhook_endpoints').columns(['next_due_at']).execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_due_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status', 'next_attempt_at', 'id'])
    .execute();
  // Covered by the index above (its first two columns).
  await db.schema.dropIndex('webhook_deliveries_endpoint_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status'])
    .execute();
  await db.schema.dropIndex('webhook_deliveries_endpoint_due_idx').execute();
  await db.schema.dropIndex('webhook_endpoints_next_due_idx').execute();
  await db.schema.alterTable('webhook_delivery_attempts').dropColumn('throttled').execute();
  for (const column of ['leased_until', 'lease_token', 'paused_until', 'next_due_at', 'max_per_second', 'max_in_flight']) {
    await db.schema.alterTable('webhook_endpoints').dropColumn(column).execute();
  }
}
