import type { AppContext } from '../context.js';
import type { DbOrTrx } from '../db/database.js';
import { isStoredPosition, newerThan, type PagePosition } from '../db/keyset-page.js';
import { fieldError, notFound } from '../errors.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { EVENT_TYPES } from './event-types.js';
import { validEventTypes } from './event-type-filter.js';

/**
 * The event log (issue 31, item 7; docs/webhooks.md#the-event-log): every outbox event of the
 * clinic within EVENT_RETENTION_DAYS and older than EVENT_LOG_SETTLE_MS, oldest first by
 * (created_at, id), each exactly as a webhook body carries it, `id` the `webhook-id` of its deliveries.
 */

export const EVENT_LOG_LIMIT = { default: 50, max: 100 } as const;

/** Where a clinic's log starts: before any event. A partner with no cursor polls from here. */
const START: PagePosition = { createdAt: '1970-01-01T00:00:00.000Z', id: '00000000-0000-0000-0000-000000000000' };

/** The cursor of a position in a clinic's log: opaque, bound to the clinic (another clinic's is not found). */
export function encodeEventCursor(clinicId: string, position: PagePosition): string {
  return Buffer.from(JSON.stringify(['ev', clinicId, position.createdAt, position.id]), 'utf8').toString('base64url');
}

/** The position `after` stands for in the caller's log: 400 on `after` for what this API never returned, 404 for another clinic's. */
export function decodeEventCursor(clinicId: string, after: string): PagePosition {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  if (
    !Array.isArray(value) ||
    value.length !== 4 ||
    value[0] !== 'ev' ||
    typeof value[1] !== 'string' ||
    !isStoredPosition(value[2], value[3])
  ) {
    throw fieldError('after', 'is not a cursor this API returned (pass next_cursor from the previous page)');
  }
  if (value[1] !== clinicId) throw notFound('Cursor not found: it belongs to another clinic\u2019s event log');
  return { createdAt: value[2] as string, id: value[3] as string };
}

/** `type`: one name or several, comma-separated, each one of EVENT_TYPES (400 naming `type` otherwise). */
export function parseTypeFilter(type: string | undefined): string[] | null {
  if (type === undefined || type.trim() === '') return null;
  const names = [...new Set(type.split(',').map((name) => name.trim()))];
  const known = new Set<string>(EVENT_TYPES);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw fieldError('type', `has unknown event types (${unknown.join(', ')}); valid: ${validEventTypes()}`);
  return names;
}

export interface LoggedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

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

/** The window of a page read at `now`: the last EVENT_RETENTION_DAYS, up to EVENT_LOG_SETTLE_MS ago. */
export function eventWindowAt(
  now: Date,
  config: Pick<AppContext['config'], 'eventRetentionDays' | 'eventLogSettleMs'>,
): EventWindow {
  return {
    since: new Date(now.getTime() - config.eventRetentionDays * 86_400_000).toISOString(),
    until: new Date(now.getTime() - config.eventLogSettleMs).toISOString(),
  };
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

/** GET /api/external/events: a page of the caller's clinic's events and the cursor to go on from. */
export async function listEvents(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config'>,
  identity: PartnerIdentity,
  query: { after?: string | undefined; type?: string | undefined; limit?: number | undefined },
): Promise<{ items: LoggedEvent[]; next_cursor: string }> {
  const clinicId = identity.clinicId;
  const types = parseTypeFilter(query.type);
  const position = query.after === undefined ? START : decodeEventCursor(clinicId, query.after);
  const limit = query.limit ?? EVENT_LOG_LIMIT.default;
  const rows = await readEventPage(ctx.db, clinicId, position, eventWindowAt(ctx.clock(), ctx.config), types, limit);
  const last = rows[rows.length - 1];
  return {
    items: rows.map((row) => ({
      id: row.id,
      type: row.type,
      timestamp: row.created_at,
      data: JSON.parse(row.payload) as unknown,
    })),
    // Always a cursor: the last event returned, or where the caller already stood, so polling never ends.
    next_cursor: encodeEventCursor(clinicId, last ? { createdAt: last.created_at, id: last.id } : position),
  };
}
