import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** The order's current hold, and the address a partner's answer gave it (issue 29; docs/orders.md#holds). */
const ORDER_COLUMNS = [
  'hold_reason_code',
  'hold_message',
  'hold_waiting_on',
  'hold_since',
  'held_from',
  'hold_answered_at',
  'ship_to_address_line1',
  'ship_to_address_line2',
  'ship_to_city',
  'ship_to_state',
  'ship_to_postal_code',
];

/** What a history row says of a hold: its kind (`hold`, `answer`, `resume`; null for a plain status move), reason, whom it waits on, the message. */
const HISTORY_COLUMNS = ['kind', 'reason_code', 'waiting_on', 'message'];

const OLD_HISTORY_COLUMNS = ['id', 'medication_request_id', 'from_status', 'to_status', 'actor', 'at', 'actor_id', 'actor_name'];

/**
 * Holds (issue 29). An order can now enter a state again (pending → on_hold → pending), so the
 * history's "each state at most once" key goes; the history-by-order lookup gets a plain index in
 * the order rows are read (the row's time, then its time-ordered id). The history also carries the
 * hold's conversation (the hold, the partner's answers, the resume), so that an order's read stays
 * one history query. SQLite cannot drop a table constraint, so its history table is rebuilt.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ORDER_COLUMNS) await db.schema.alterTable('medication_requests').addColumn(column, 'text').execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table medication_request_status_history drop constraint status_history_order_status_key`.execute(db);
    for (const column of HISTORY_COLUMNS)
      await db.schema.alterTable('medication_request_status_history').addColumn(column, 'text').execute();
  } else {
    await db.schema
      .createTable('medication_request_status_history_021')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('medication_request_id', 'text', (c) => c.notNull().references('medication_requests.id'))
      .addColumn('from_status', 'text')
      .addColumn('to_status', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text')
      .addColumn('actor_name', 'text')
      .addColumn('kind', 'text')
      .addColumn('reason_code', 'text')
      .addColumn('waiting_on', 'text')
      .addColumn('message', 'text')
      .execute();
    const columns = sql.join(OLD_HISTORY_COLUMNS.map((c) => sql.ref(c)));
    await sql`insert into medication_request_status_history_021 (${columns}) select ${columns} from medication_request_status_history`.execute(
      db,
    );
    await db.schema.dropTable('medication_request_status_history').execute();
    await db.schema.alterTable('medication_request_status_history_021').renameTo('medication_request_status_history').execute();
  }
  await db.schema
    .createIndex('status_history_order_at_idx')
    .on('medication_request_status_history')
    .columns(['medication_request_id', 'at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('status_history_order_at_idx').execute();
  for (const column of HISTORY_COLUMNS)
    await db.schema.alterTable('medication_request_status_history').dropColumn(column).execute();
  for (const column of ORDER_COLUMNS) await db.schema.alterTable('medication_requests').dropColumn(column).execute();
  // PostgreSQL gets its key back (SQLite's rebuilt table never had it again: `up` rebuilds it either way).
  // Refused if an order entered a state twice: undoing holds after using them loses that history.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table medication_request_status_history add constraint status_history_order_status_key unique (medication_request_id, to_status)`.execute(
      db,
    );
  }
}
