import type { DbOrTrx } from '../db/database.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { RequestLogTable } from './request-log.tables.js';

/** Appends a batch of rows in one multi-row INSERT (the buffer never passes more than its batch size, 500). */
export async function insertRequestLogRows(db: DbOrTrx, rows: readonly RequestLogTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db.executeQuery(db.insertInto('request_log').values(rows).compile());
}

export interface RequestLogFilter {
  /** Exact status, or a range `[from, to)` (a class such as 4xx). */
  status?: { from: number; to: number } | undefined;
  route?: string | undefined;
  /** ISO-8601 UTC: rows at or after. */
  since?: string | undefined;
  requestId?: string | undefined;
  before?: PagePosition | undefined;
  limit: number;
}

/** A clinic's rows, newest first (occurred_at, id), filtered; `limit` rows at most. */
export async function listRequestLogOfClinic(
  db: DbOrTrx,
  clinicId: string,
  filter: RequestLogFilter,
): Promise<RequestLogTable[]> {
  let query = db.selectFrom('request_log').selectAll().where('clinic_id', '=', clinicId);
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
  if (filter.route !== undefined) query = query.where('route', '=', filter.route);
  if (filter.status !== undefined) {
    query = query.where('status', '>=', filter.status.from).where('status', '<', filter.status.to);
  }
  if (filter.since !== undefined) query = query.where('occurred_at', '>=', filter.since);
  if (filter.before) query = query.where(olderThan({ createdAt: 'occurred_at', id: 'id' }, filter.before));
  return query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/** Deletes up to `limit` rows that occurred before `cutoff`; returns how many. Unscoped: the purge serves every clinic. */
export async function deleteRequestLogBefore(db: DbOrTrx, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('request_log')
    .where('id', 'in', (q) => q.selectFrom('request_log').select('id').where('occurred_at', '<', cutoff).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
