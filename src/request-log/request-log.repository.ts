import { createQueryId, type CompiledQuery } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { RequestLogTable } from './request-log.tables.js';

const COLUMNS = [
  'id',
  'clinic_id',
  'occurred_at',
  'method',
  'route',
  'status',
  'duration_ms',
  'request_id',
  'api_key_id',
  'oauth_client_id',
  'idempotency_key',
  'error_code',
  'error_message',
] as const satisfies readonly (keyof RequestLogTable)[];

/** A full batch's INSERT, compiled once per handle and row count (the buffer's batch size). */
interface Template {
  rows: number;
  query: CompiledQuery;
  /** For each parameter: its row and column. */
  slots: [number, (typeof COLUMNS)[number]][];
}
const templates = new WeakMap<DbOrTrx, Template>();

/**
 * Appends a batch of rows in one multi-row INSERT. Compiling a 500-row INSERT walks 6,500 value
 * nodes (a third of the batch's cost: docs/performance.md), so the statement of a batch's size is
 * compiled once, with markers for values, and run again with each batch's values in their places;
 * a batch of another size (a partial one, written by the timer at low traffic) is compiled as usual.
 */
export async function insertRequestLogRows(db: DbOrTrx, rows: readonly RequestLogTable[], templateRows = 0): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length !== templateRows) {
    await db.executeQuery(db.insertInto('request_log').values(rows).compile());
    return;
  }
  let template = templates.get(db);
  if (template?.rows !== templateRows) {
    template = compileTemplate(db, templateRows);
    templates.set(db, template);
  }
  const parameters = template.slots.map(([row, column]) => rows[row]?.[column] ?? null);
  await db.executeQuery({ ...template.query, queryId: createQueryId(), parameters });
}

function compileTemplate(db: DbOrTrx, count: number): Template {
  const marker = (row: number, column: string) => `request-log-marker:${row}:${column}`;
  const rows = Array.from({ length: count }, (_, row) =>
    Object.fromEntries(COLUMNS.map((column) => [column, marker(row, column)])),
  ) as unknown as RequestLogTable[];
  const query = db.insertInto('request_log').values(rows).compile();
  const slots = query.parameters.map((parameter) => {
    const match = /^request-log-marker:(\d+):([a-z_]+)$/.exec(String(parameter));
    const column = COLUMNS.find((name) => name === match?.[2]);
    if (!match || column === undefined) throw new Error('request log: the INSERT template binds a value that is not a marker');
    return [Number(match[1]), column] as [number, (typeof COLUMNS)[number]];
  });
  if (slots.length !== count * COLUMNS.length) throw new Error('request log: the INSERT template does not bind every value');
  return { rows: count, query, slots };
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

/**
 * Deletes up to `limit` rows whose id is below `firstIdAt` (a UUIDv7 bound: the rows of earlier
 * milliseconds, by the primary key); returns how many. Unscoped: the purge serves every clinic.
 */
export async function deleteRequestLogBefore(db: DbOrTrx, firstIdAt: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('request_log')
    .where('id', 'in', (q) => q.selectFrom('request_log').select('id').where('id', '<', firstIdAt).orderBy('id').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
