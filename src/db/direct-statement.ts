import { createHash } from 'node:crypto';
import type { Database as SQLiteDatabase, Statement } from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { DbOrTrx } from './database.js';

/**
 * The driver under a root Kysely handle (create-db.ts registers it), for the hot reads that run a
 * compiled statement straight on it (reusable-query.ts). A query through Kysely's driver costs
 * about 27 promises on SQLite (the connection's mutex, its acquire and release, the result's
 * transformation) and a parse and plan on PostgreSQL at every run; run directly, it costs none on
 * SQLite and is a named statement on PostgreSQL (parsed once per connection).
 *
 * Only root handles are registered, never a transaction's: a query inside a transaction goes
 * through Kysely, on the transaction's connection.
 *
 * SQLite: better-sqlite3 runs the statement synchronously, so nothing else runs in between. A
 * direct read is allowed only while the connection is outside a transaction (`inTransaction`):
 * inside another request's open transaction it would see that transaction's uncommitted rows, so
 * the read then goes through Kysely, whose mutex makes it wait for the COMMIT, as before.
 *
 * PostgreSQL: the pool lends an idle connection, as Kysely's driver does; rows are parsed by the
 * same type parsers.
 */
type Driver =
  { kind: 'sqlite'; database: SQLiteDatabase; prepare: (sql: string) => Statement } | { kind: 'postgres'; pool: pg.Pool };

const registered = new WeakMap<DbOrTrx, Driver>();

/** `prepare` is the statement cache Kysely's dialect uses too (sqlite-statement-cache.ts). */
export function registerDirectSqlite(db: DbOrTrx, database: SQLiteDatabase, prepare: (sql: string) => Statement): void {
  registered.set(db, { kind: 'sqlite', database, prepare });
}

export function registerDirectPostgres(db: DbOrTrx, pool: pg.Pool): void {
  registered.set(db, { kind: 'postgres', pool });
}

export interface DirectStatement {
  /** Whether a direct read sees only committed rows now (on SQLite: the connection is outside any transaction). */
  available(): boolean;
  rows<Row>(parameters: readonly unknown[]): Row[] | Promise<Row[]>;
}

/** A statement that runs the read `sql` directly on `db`'s driver, or undefined when `db` is not a registered root handle. */
export function directStatement(db: DbOrTrx, sql: string): DirectStatement | undefined {
  const driver = registered.get(db);
  if (driver === undefined) return undefined;
  if (driver.kind === 'postgres') {
    // The name is the text's digest: one name per text, whatever module asks.
    const name = `reusable_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    return {
      available: () => true,
      rows: async <Row>(parameters: readonly unknown[]) =>
        (await driver.pool.query({ name, text: sql, values: [...parameters] })).rows as Row[],
    };
  }
  const { database, prepare } = driver;
  return {
    available: () => !database.inTransaction,
    rows: <Row>(parameters: readonly unknown[]): Row[] => prepare(sql).all(parameters) as Row[],
  };
}

/**
 * Runs compiled writes on SQLite in one transaction of their own, synchronously (BEGIN, each
 * statement, COMMIT; a failing statement rolls back and throws), and returns true; returns false,
 * having run nothing, when `db` is not a root SQLite handle or its connection is inside another
 * request's transaction (the caller then goes through Kysely, which waits for that transaction).
 * Run synchronously, the transaction costs no promise and nothing interleaves with it.
 */
export function runWritesDirectly(db: DbOrTrx, writes: readonly CompiledQuery[]): boolean {
  const driver = registered.get(db);
  if (driver?.kind !== 'sqlite' || driver.database.inTransaction) return false;
  const { database, prepare } = driver;
  database.transaction(() => {
    for (const write of writes) prepare(write.sql).run(write.parameters);
  })();
  return true;
}

/**
 * Runs a write on PostgreSQL's pool as the named statement `name` (parsed once per pooled connection)
 * and resolves true; resolves false, having run nothing, when `db` is not a root PostgreSQL handle.
 */
export async function runNamedDirectly(db: DbOrTrx, name: string, sql: string, parameters: readonly unknown[]): Promise<boolean> {
  const driver = registered.get(db);
  if (driver?.kind !== 'postgres') return false;
  await driver.pool.query({ name, text: sql, values: [...parameters] });
  return true;
}

/** Statement names of writes run by `runWriteDirectly`, by text (bounded like the texts they name). */
const writeNames = new Map<string, string>();
const MAX_WRITE_NAMES = 500;

/**
 * Runs one compiled write straight on the driver of a root handle and returns true: on SQLite
 * synchronously (autocommitted) while no transaction is open on the connection, on PostgreSQL as a
 * named statement (parsed once per connection). Returns false, having run nothing, otherwise; the
 * caller then runs it through Kysely.
 */
export async function runWriteDirectly(db: DbOrTrx, write: CompiledQuery): Promise<boolean> {
  const driver = registered.get(db);
  if (driver === undefined) return false;
  if (driver.kind === 'sqlite') {
    if (driver.database.inTransaction) return false;
    driver.prepare(write.sql).run(write.parameters);
    return true;
  }
  let name = writeNames.get(write.sql);
  if (name === undefined) {
    name = `write_${createHash('sha256').update(write.sql).digest('hex').slice(0, 24)}`;
    if (writeNames.size >= MAX_WRITE_NAMES) {
      await driver.pool.query({ text: write.sql, values: [...write.parameters] });
      return true;
    }
    writeNames.set(write.sql, name);
  }
  await driver.pool.query({ name, text: write.sql, values: [...write.parameters] });
  return true;
}
