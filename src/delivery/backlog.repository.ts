import type { DbOrTrx } from '../db/database.js';

/** Cheap counts of the webhook queue for the metrics (each one COUNT on an index). */

/** Outbox events not yet fanned out to deliveries. */
export async function countUndispatchedEvents(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom('outbox_events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('dispatched_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deliveries still to be delivered: waiting for their first attempt or a retry, or in flight. */
export async function countPendingDeliveries(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
