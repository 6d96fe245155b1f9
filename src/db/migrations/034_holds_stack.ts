import { sql, type Kysely } from 'kysely';
import { newId } from '../../shared/ids.js';

/**
 * Holds that stack (issue 39, item 1; docs/orders.md#holds): one row per hold in `order_holds`,
 * each with its reason, whom it waits on, its message and its own resolution (when, by whom, how:
 * `answer`, `resume`, `override` with the pharmacist's `override_reason`, or `cancel` when the order
 * was cancelled). One reason is open at most once per order (a partial unique index). The order's
 * own hold columns (migration 021) stay: they mirror the hold a partner reads first (`hold`), which
 * the queues, the dashboard and FHIR read. The history's rows name their hold (`hold_id`), how it was
 * resolved (`resolution`) and a clinical override's reason.
 *
 * Existing data: each order on hold gets one open row from its columns (the hold it has today, by
 * the person of its last `hold` history row, linked to it); past holds stay in the history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_holds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('medication_request_id', 'text', (c) => c.notNull().references('medication_requests.id'))
    .addColumn('reason_code', 'text', (c) => c.notNull())
    .addColumn('waiting_on', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'text', (c) => c.notNull())
    .addColumn('opened_by', 'text', (c) => c.notNull())
    .addColumn('opened_by_id', 'text')
    .addColumn('opened_by_name', 'text')
    .addColumn('answered_at', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolution', 'text')
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_by_id', 'text')
    .addColumn('resolved_by_name', 'text')
    .addColumn('override_reason', 'text')
    .execute();
  await db.schema
    .createIndex('order_holds_order_idx')
    .on('order_holds')
    .columns(['medication_request_id', 'opened_at', 'id'])
    .execute();
  await db.schema
    .createIndex('order_holds_open_reason_key')
    .on('order_holds')
    .columns(['medication_request_id', 'reason_code'])
    .unique()
    .where(sql.ref('resolved_at'), 'is', null)
    .execute();
  for (const column of ['hold_id', 'resolution', 'override_reason'])
    await db.schema.alterTable('medication_request_status_history').addColumn(column, 'text').execute();

  const held = await db
    .selectFrom('medication_requests')
    .select(['id', 'hold_reason_code', 'hold_message', 'hold_waiting_on', 'hold_since', 'hold_answered_at', 'updated_at'])
    .where('status', '=', 'on_hold')
    .execute();
  for (const order of held) {
    const last = await db
      .selectFrom('medication_request_status_history')
      .select(['id', 'actor', 'actor_id', 'actor_name', 'at'])
      .where('medication_request_id', '=', order.id)
      .where('kind', '=', 'hold')
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const id = newId();
    await db
      .insertInto('order_holds')
      .values({
        id,
        medication_request_id: order.id,
        reason_code: order.hold_reason_code ?? 'other',
        waiting_on: order.hold_waiting_on ?? 'pharmacy',
        message: order.hold_message ?? '',
        opened_at: last?.at ?? order.hold_since ?? order.updated_at,
        opened_by: last?.actor ?? 'operator',
        opened_by_id: last?.actor_id ?? null,
        opened_by_name: last?.actor_name ?? null,
        answered_at: order.hold_answered_at ?? null,
      })
      .execute();
    if (last) await db.updateTable('medication_request_status_history').set({ hold_id: id }).where('id', '=', last.id).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['hold_id', 'resolution', 'override_reason'])
    await db.schema.alterTable('medication_request_status_history').dropColumn(column).execute();
  await db.schema.dropIndex('order_holds_open_reason_key').execute();
  await db.schema.dropIndex('order_holds_order_idx').execute();
  await db.schema.dropTable('order_holds').execute();
}
