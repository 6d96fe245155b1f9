import { sql } from 'kysely';
import type { Trx } from '../db/database.js';

/**
 * The `sequence` of an order's next event (issue 31, item 8; docs/webhooks.md#ordering): counts the
 * order's events, 1 for the first, and returns the new count. One UPDATE … RETURNING, inside the
 * change that records the event, so it holds the order's row until the change commits: two changes
 * of one order get distinct, increasing numbers in the order they commit.
 */
export async function bumpOrderSequence(trx: Trx, orderId: string): Promise<number> {
  const row = await trx
    .updateTable('medication_requests')
    .set({ event_sequence: sql<number>`event_sequence + 1` })
    .where('id', '=', orderId)
    .returning('event_sequence')
    .executeTakeFirstOrThrow();
  return Number(row.event_sequence);
}
