import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { DbOrTrx, DialectName, Trx } from './database.js';

/**
 * The differences between SQLite and PostgreSQL that queries outside this folder would otherwise
 * ask about: row locking, time arithmetic, batched updates and notifications. Each is one function,
 * so that a repository says what it needs ("lock these rows, skipping those locked") and never which
 * database it is on. SQLite runs one transaction at a time in one process: its locks are no-ops.
 */

/**
 * Locks the selected rows until the transaction ends, skipping rows another transaction holds
 * (PostgreSQL `FOR UPDATE SKIP LOCKED`): how several workers share a queue without waiting on, or
 * taking, each other's rows.
 */
export function skipLocked<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: DialectName,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/** Locks the selected rows until the transaction ends, waiting for other holders (`FOR UPDATE`). */
export function forUpdate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: DialectName,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

/**
 * Locks rows of `table` by id, in id order, until the transaction ends: transactions that lock
 * several rows of a table all take them in the same order, so they cannot deadlock on them.
 * Nothing to do on SQLite (one transaction at a time), so no statement is run there.
 */
export async function lockRowsInOrder(trx: Trx, dialect: DialectName, table: string, ids: readonly string[]): Promise<void> {
  if (dialect !== 'postgres' || ids.length === 0) return;
  const sorted = [...new Set(ids)].sort();
  await sql`select id from ${sql.table(table)} where id in (${sql.join(sorted)}) order by id for update`.execute(trx);
}

/** `column` (an ISO timestamp) plus `ms` milliseconds, as the same ISO text, in the dialect's SQL. */
export function plusMs(dialect: DialectName, column: string, ms: number): RawBuilder<string> {
  if (dialect === 'postgres') {
    return sql<string>`to_char((${sql.ref(column)}::timestamptz + ${ms}::double precision * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
  return sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', ${sql.ref(column)}, ${`${(ms / 1000).toFixed(3)} seconds`})`;
}

/**
 * Whether the text expression `value` holds `term` anywhere, ignoring the case of A-Z only (other
 * letters match as written), the same on both databases: `term`'s LIKE wildcards match themselves.
 * SQLite's lower() folds only ASCII; PostgreSQL's does so under the "C" collation. A null value
 * holds nothing.
 */
export function containsText(dialect: DialectName, value: RawBuilder<string | null>, term: string): RawBuilder<SqlBool> {
  const pattern = `%${asciiLower(term).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const folded = dialect === 'postgres' ? sql`lower(${value} collate "C")` : sql`lower(${value})`;
  return sql<SqlBool>`${folded} like ${pattern} escape '\\'`;
}

/** `text` with A-Z lowered and every other character as it is (lower() of both databases, as used above). */
export const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Sends a notification on `channel` at commit (PostgreSQL NOTIFY), naming the schema; none on SQLite. */
export async function notifyAtCommit(trx: Trx, dialect: DialectName, channel: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_notify(${channel}, current_schema())`.execute(trx);
}

/** The column types `updateRows` binds (PostgreSQL needs them to type its arrays). */
export type ColumnType = 'text' | 'integer';
type Value = string | number | null;

/**
 * Updates many rows of `table`, each with its own values, and returns the keys of the rows updated:
 * a row is updated only where its `key` equals the row's value of that name and every guarded
 * column equals the row's value of the guard's field (`guards: { claim_token: 'lease' }`), and
 * `fixed` columns get the same value in every row. PostgreSQL: one statement over `unnest` of one
 * array per field (one round trip however many rows); SQLite: one prepared statement per row, in
 * process.
 */
export async function updateRows(
  db: DbOrTrx,
  dialect: DialectName,
  spec: {
    table: string;
    key: string;
    /** Guarded column → the row field holding the value it must have (text). */
    guards: Readonly<Record<string, string>>;
    columns: Readonly<Record<string, ColumnType>>;
    fixed?: Readonly<Record<string, Value>>;
    rows: readonly Readonly<Record<string, Value>>[];
  },
): Promise<string[]> {
  const { table, key, columns, rows } = spec;
  if (rows.length === 0) return [];
  const names = Object.keys(columns);
  const guards: [column: string, field: string][] = [[key, key], ...Object.entries(spec.guards)];
  const fixed = Object.entries(spec.fixed ?? {}).map(([name, value]) => sql`${sql.id(name)} = ${value}`);
  if (dialect === 'postgres') {
    const fields = [...new Set([...guards.map(([, field]) => field), ...names])];
    const arrays = fields.map((field) => sql`${rows.map((row) => row[field] ?? null)}::${sql.raw(columns[field] ?? 'text')}[]`);
    const result = await sql<{ key: string }>`
      update ${sql.table(table)} as t
      set ${sql.join([...names.map((name) => sql`${sql.id(name)} = v.${sql.id(name)}`), ...fixed])}
      from unnest(${sql.join(arrays)}) as v(${sql.join(fields.map((field) => sql.id(field)))})
      where ${sql.join(
        guards.map(([column, field]) => sql`t.${sql.id(column)} = v.${sql.id(field)}`),
        sql` and `,
      )}
      returning t.${sql.id(key)} as key`.execute(db);
    return result.rows.map((row) => row.key);
  }
  const updated: string[] = [];
  for (const row of rows) {
    const result = await sql<{ key: string }>`
      update ${sql.table(table)}
      set ${sql.join([...names.map((name) => sql`${sql.id(name)} = ${row[name] ?? null}`), ...fixed])}
      where ${sql.join(
        guards.map(([column, field]) => sql`${sql.id(column)} = ${row[field] ?? null}`),
        sql` and `,
      )}
      returning ${sql.id(key)} as key`.execute(db);
    for (const r of result.rows) updated.push(r.key);
  }
  return updated;
}
