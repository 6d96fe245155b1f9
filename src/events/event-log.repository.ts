import type { DbOrTrx } from '../db/database.js';
import { newerThan, type PagePosition } from '../db/keyset-page.js';

/* The event log's queries (docs/webhooks.md#the-event-log): a page of a clinic's outbox events, and the purge of expired ones. */

/** Where a clinic's log starts: before any event. A partner with no cursor polls from here. */
export const START: PagePosition = { createdAt: '1970-01-01T00:00:00.000Z', id: '00000000-0000-0000-0000-000000000000' };

/**
 * The times a page may hold: from the retention's start (`since`) to the settled horizon (`until`,
 * EVENT_LOG_SETTLE_MS before now). An event's time is the moment its change began, and the change
 * commits a little later: an event younger than the horizon is left for a later poll, so that one
 * that began earlier but commits later cannot land behind a cursor already handed out.
 */
export interface EventWindow {
  since: string;
  until: string;
}

/**
 * The queries of one page of the clinic's events after `position`: a range of (clinic_id, created_at,
 * id), or of (clinic_id, type, created_at, id) per type asked, reading at most `limit` rows each
 * (migration 029; test/events/event-log-scale.test.ts). `created_at >=` the position's time bounds
 * the range from below (the keyset's `or` alone is no index range), the window's `until` from above.
 */
export function eventPageQueries(
  db: DbOrTrx,
  clinicId: string,
  position: PagePosition,
  window: EventWindow,
  types: string[] | null,
  limit: number,
) {
  // Never before the retention's start: a position older than it reads from there.
  const from = position.createdAt < window.since ? { createdAt: window.since, id: START.id } : position;
  const page = (type: string | null) => {
    let query = db
      .selectFrom('outbox_events')
      .select(['id', 'type', 'payload', 'created_at'])
      .where('clinic_id', '=', clinicId)
      .where('created_at', '>=', from.createdAt)
      .where('created_at', '<=', window.until)
      .where(newerThan({ createdAt: 'created_at', id: 'id' }, from));
    if (type !== null) query = query.where('type', '=', type);
    return query.orderBy('created_at').orderBy('id').limit(limit);
  };
  return types === null ? [page(null)] : types.map((type) => page(type));
}

/** One page of the clinic's events after `position` (eventPageQueries), oldest first. */
export async function readEventPage(
  db: DbOrTrx,
  clinicId: string,
  position: PagePosition,
  window: EventWindow,
  types: string[] | null,
  limit: number,
): Promise<{ id: string; type: string; payload: string; created_at: string }[]> {
  const queries = eventPageQueries(db, clinicId, position, window, types, limit);
  const [only] = queries;
  if (queries.length === 1 && only !== undefined) return only.execute();
  // Several types: one range per type (each at most `limit` rows), merged in (created_at, id) order.
  const pages = await Promise.all(queries.map((query) => query.execute()));
  return pages
    .flat()
    .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1))
    .slice(0, limit);
}

/**
 * Deletes at most `batchSize` outbox events already fanned out before `cutoff`, oldest first (a range
 * of the undispatched index's (dispatched_at, created_at)); returns how many.
 */
export async function deleteDispatchedBefore(db: DbOrTrx, cutoff: string, batchSize: number): Promise<number> {
  const result = await db
    .deleteFrom('outbox_events')
    .where('id', 'in', (q) =>
      q.selectFrom('outbox_events').select('id').where('dispatched_at', '<', cutoff).orderBy('dispatched_at').limit(batchSize),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
