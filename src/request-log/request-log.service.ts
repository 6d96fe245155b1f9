import type { AppContext, ReadContext } from '../context.js';
import { decodeCursor, encodeCursor, type Page } from '../db/keyset-page.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { firstIdAt } from '../shared/ids.js';
import { optionalInstant } from '../shared/instants.js';
import {
  countErrorsOfClinicSince,
  countRequestsOfClinicSince,
  deleteRequestLogBefore,
  listRequestLogOfClinic,
  type RequestLogFilter,
} from './request-log.repository.js';
import type { ListRequestLogQuery, RequestLogEntryView } from './request-log.schemas.js';

/**
 * The clinic's own request log, newest first, one page at a time (`limit`, default 50; `cursor`
 * from the previous page's `next_cursor`), filtered by status (exact or class), route template,
 * method, time and request id. A request id finds its request in one search.
 */
export async function listRequestLog(
  ctx: ReadContext,
  identity: Pick<PartnerIdentity, 'clinicId'>,
  query: ListRequestLogQuery,
): Promise<Page<RequestLogEntryView>> {
  const limit = query.limit ?? 50;
  const filter: RequestLogFilter = {
    status: query.status === undefined ? undefined : statusRange(query.status),
    method: query.method,
    route: query.route?.replace(/\{([^}/]+)\}/g, ':$1'),
    since: optionalInstant(query.since, 'since'),
    until: optionalInstant(query.until, 'until'),
    requestId: query.request_id?.toLowerCase(),
    before: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    limit: limit + 1,
  };
  const rows = await listRequestLogOfClinic(ctx.db, identity.clinicId, filter);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    // An entry's id is its request's: one entry per request (migration 020).
    items: items.map(({ clinic_id: _clinic, ...entry }) => ({ id: entry.request_id, ...entry })),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.occurred_at, id: last.request_id }) : null,
  };
}

/**
 * What a clinic's log says of the 24 hours before now: how many requests, and its errors counted by
 * code, most frequent first (the partner portal's overview).
 */
export async function requestLogLastDay(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  clinicId: string,
): Promise<{ requests: number; errors: { code: string; count: number }[] }> {
  const since = new Date(ctx.clock().getTime() - 86_400_000).toISOString();
  const [requests, errors] = await Promise.all([
    countRequestsOfClinicSince(ctx.db, clinicId, since),
    countErrorsOfClinicSince(ctx.db, clinicId, since),
  ]);
  return { requests, errors };
}

/** `404` → [404, 405); `4xx` → [400, 500). The query's pattern has already checked the form. */
function statusRange(status: string): { from: number; to: number } {
  if (status.endsWith('xx')) {
    const from = Number(status[0]) * 100;
    return { from, to: from + 100 };
  }
  const exact = Number(status);
  return { from: exact, to: exact + 1 };
}

/** Rows deleted per statement, and statements per pass at most (the next pass, 10 minutes later, goes on). */
const PURGE_BATCH = 5_000;
const PURGE_MAX_BATCHES = 20;

/**
 * Deletes the rows older than REQUEST_LOG_RETENTION_DAYS by the context's clock, in bounded batches;
 * returns how many. Every instance may run it: their deletes of the same rows are harmless.
 */
export async function purgeRequestLog(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config'>,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? PURGE_BATCH;
  const maxBatches = options.maxBatches ?? PURGE_MAX_BATCHES;
  // Rows of requests that arrived in earlier milliseconds than this: a row's key is its request id, a
  // UUIDv7 of the request's arrival by the same clock (http/request-id.ts), at most its duration before occurred_at.
  const cutoff = firstIdAt(ctx.clock().getTime() - ctx.config.requestLogRetentionDays * 86_400_000);
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const count = await deleteRequestLogBefore(ctx.db, cutoff, batchSize);
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}
