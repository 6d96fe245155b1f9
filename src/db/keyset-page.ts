import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { fieldError } from '../errors.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../shared/opaque-cursor.js';

/**
 * Keyset pagination on (created_at, id), newest first, for the operator's lists: stable under
 * inserts, one indexed range scan per page whatever the page number. The cursor is the last row's
 * position, opaque to clients.
 */
export interface PagePosition {
  createdAt: string;
  id: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export function encodeCursor(position: PagePosition): string {
  return encodeOpaqueCursor([position.createdAt, position.id]);
}

/** A position as rows store it: the time as `toISOString` writes it, and a UUID. */
const STORED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ROW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a decoded cursor's two values have the shape rows store (a stored time and a UUID). */
export function isStoredPosition(createdAt: unknown, id: unknown): boolean {
  return typeof createdAt === 'string' && typeof id === 'string' && STORED_TIME.test(createdAt) && ROW_ID.test(id);
}

/**
 * The position a cursor stands for; anything this API did not return is a 400 on `cursor`. The
 * position reaches the database, so it is checked for the shape rows store: a crafted cursor holding
 * a NUL would otherwise be a 500 on PostgreSQL and a page on SQLite (issue 9, item 2).
 */
export function decodeCursor(cursor: string): PagePosition {
  const value = decodeOpaqueCursor(cursor);
  if (value?.length === 2 && isStoredPosition(value[0], value[1])) {
    return { createdAt: value[0] as string, id: value[1] as string };
  }
  throw fieldError('cursor', 'is not a cursor this API returned (pass next_cursor from the previous page)');
}

/**
 * The keyset predicate: rows strictly after `position` in (created_at desc, id desc) order.
 * `columns` names the two columns, qualified when the query joins (`d.created_at`).
 */
export function olderThan(columns: { createdAt: string; id: string }, position: PagePosition): RawBuilder<SqlBool> {
  const createdAt = sql.ref(columns.createdAt);
  const id = sql.ref(columns.id);
  return sql<SqlBool>`(${createdAt} < ${position.createdAt} or (${createdAt} = ${position.createdAt} and ${id} < ${position.id}))`;
}

/** The keyset predicate of an oldest-first list: rows strictly after `position` in (created_at, id) order. */
export function newerThan(columns: { createdAt: string; id: string }, position: PagePosition): RawBuilder<SqlBool> {
  const createdAt = sql.ref(columns.createdAt);
  const id = sql.ref(columns.id);
  return sql<SqlBool>`(${createdAt} > ${position.createdAt} or (${createdAt} = ${position.createdAt} and ${id} > ${position.id}))`;
}

/**
 * Turns `limit + 1` rows (the repositories fetch one more than asked, to know whether a next page
 * exists) into a page of `limit` items and the cursor of the next page.
 */
export function toPage<Row extends { created_at: string; id: string }, T>(
  rows: Row[],
  limit: number,
  view: (rows: Row[]) => T[],
): Page<T> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: view(page),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}
