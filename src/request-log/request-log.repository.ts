import type { DbOrTrx } from '../db/database.js';
import { runWriteDirectly } from '../db/direct-statement.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import { insertRows } from '../db/row-insert.js';
import type { RequestLogTable } from './request-log.tables.js';

/**
 * Appends a batch of rows in one multi-row INSERT. Compiling a 500-row INSERT walks 6,000 value
 * nodes (a third of the batch's cost: docs/performance.md), so a batch of the buffer's full size
 * (`fullBatch`) is compiled once (db/row-insert.ts) and run again with each batch's values; a batch
 * of another size (a partial one, written by the timer at low traffic) is compiled as usual.
 *
 * Rows are keyed by request id (migration 020), unique by construction (http/request-id.ts); a
 * duplicate, should one ever come, is skipped rather than failing its whole batch.
 */
export async function insertRequestLogRows(db: DbOrTrx, rows: readonly RequestLogTable[], fullBatch = 0): Promise<void> {
  if (rows.length === 0) return;
  const write = insertRows(db, 'request_log', rows, {
    compileOnce: rows.length === fullBatch,
    doNothingOnConflict: 'request_id',
  }).compile();
  if (!(await runWriteDirectly(db, write))) await db.executeQuery(write);
}

export interface RequestLogFilter {
  /** Exact status, or a range `[from, to)` (a class such as 4xx). */
  status?: { from: number; to: number } | undefined;
  method?: string | undefined;
  route?: string | undefined;
  /** ISO-8601 UTC: rows at or after. */
  since?: string | undefined;
  /** ISO-8601 UTC: rows before. */
  until?: string | undefined;
  requestId?: string | undefined;
  before?: PagePosition | undefined;
  limit: number;
}

/** A clinic's rows, newest first (occurred_at, request_id), filtered; `limit` rows at most. */
export async function listRequestLogOfClinic(
  db: DbOrTrx,
  clinicId: string,
  filter: RequestLogFilter,
): Promise<RequestLogTable[]> {
  let query = db.selectFrom('request_log').selectAll().where('clinic_id', '=', clinicId);
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.route !== undefined) query = query.where('route', '=', filter.route);
  if (filter.status !== undefined) {
    query = query.where('status', '>=', filter.status.from).where('status', '<', filter.status.to);
  }
  if (filter.since !== undefined) query = query.where('occurred_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('occurred_at', '<', filter.until);
  if (filter.before) query = query.where(olderThan({ createdAt: 'occurred_at', id: 'request_id' }, filter.before));
  return query.orderBy('occurred_at', 'desc').orderBy('request_id', 'desc').limit(filter.limit).execute();
}

/** How many of a clinic's rows are at or after `since` (the (clinic_id, occurred_at, request_id) index's range). */
export async function countRequestsOfClinicSince(db: DbOrTrx, clinicId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('request_log')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('clinic_id', '=', clinicId)
    .where('occurred_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A clinic's error answers at or after `since`, counted by error code, most frequent first. */
export async function countErrorsOfClinicSince(
  db: DbOrTrx,
  clinicId: string,
  since: string,
): Promise<{ code: string; count: number }[]> {
  const rows = await db
    .selectFrom('request_log')
    .select((eb) => ['error_code', eb.fn.countAll().as('n')])
    .where('clinic_id', '=', clinicId)
    .where('occurred_at', '>=', since)
    .where('error_code', 'is not', null)
    .groupBy('error_code')
    .execute();
  return rows
    .map((row) => ({ code: row.error_code ?? '', count: Number(row.n) }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

/**
 * Deletes up to `limit` rows whose request id is below `firstIdAt` (a UUIDv7 bound: the requests
 * that arrived in earlier milliseconds, by the primary key); returns how many. Unscoped: the purge
 * serves every clinic.
 */
export async function deleteRequestLogBefore(db: DbOrTrx, firstIdAt: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('request_log')
    .where('request_id', 'in', (q) =>
      q.selectFrom('request_log').select('request_id').where('request_id', '<', firstIdAt).orderBy('request_id').limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
