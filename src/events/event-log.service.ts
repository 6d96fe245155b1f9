import type { AppContext } from '../context.js';
import { isStoredPosition, type PagePosition } from '../db/keyset-page.js';
import { fieldError, notFound } from '../errors.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { EVENT_TYPES } from './event-types.js';
import { validEventTypes } from './event-type-filter.js';
import { storedEventBody, type EventBody } from './event-body.js';
import { readEventPage, START, type EventWindow } from './event-log.repository.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../shared/opaque-cursor.js';

/**
 * The event log (issue 31, item 7; docs/webhooks.md#the-event-log): every outbox event of the
 * clinic within EVENT_RETENTION_DAYS and older than EVENT_LOG_SETTLE_MS, oldest first by
 * (created_at, id), each exactly as a webhook body carries it, `id` the `webhook-id` of its deliveries.
 */

export const EVENT_LOG_LIMIT = { default: 50, max: 100 } as const;

/** The cursor of a position in a clinic's log: opaque, bound to the clinic (another clinic's is not found). */
export function encodeEventCursor(clinicId: string, position: PagePosition): string {
  return encodeOpaqueCursor(['ev', clinicId, position.createdAt, position.id]);
}

/** The position `after` stands for in the caller's log: 400 on `after` for what this API never returned, 404 for another clinic's. */
export function decodeEventCursor(clinicId: string, after: string): PagePosition {
  const value = decodeOpaqueCursor(after);
  if (
    value === null ||
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

/** One event of the log: its body as a webhook carries it, and its id. */
export interface LoggedEvent extends EventBody {
  id: string;
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
    // Each exactly as a webhook body carries it (event-body.ts), with its id: the webhook-id of its deliveries.
    items: rows.map((row) => ({ id: row.id, ...storedEventBody(row) })),
    // Always a cursor: the last event returned, or where the caller already stood, so polling never ends.
    next_cursor: encodeEventCursor(clinicId, last ? { createdAt: last.created_at, id: last.id } : position),
  };
}
