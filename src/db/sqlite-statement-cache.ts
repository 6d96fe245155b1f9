import type { Database as SQLiteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Enough for every statement the server writes (about 200 shapes), and a bound for the rest. */
const DEFAULT_CAPACITY = 1000;

/**
 * better-sqlite3 under Kysely, with each statement prepared once per SQL text instead of once per
 * query: Kysely's SQLite driver calls `prepare` for every query it runs, which was a tenth of the
 * server's CPU on a GET (docs/performance.md). The SQL text is the key; the values are bound at
 * each run, so nothing of a request is kept.
 *
 * The cache forgets its least recently used statement past `capacity` (`in (?, ?, …)` lists make a
 * text per length). A statement still being iterated (`busy`) is never handed out twice: a fresh
 * one is prepared for the second caller. SQLite re-prepares a cached statement by itself after a
 * migration changes the schema.
 */
export function cachingStatements(database: SQLiteDatabase, capacity = DEFAULT_CAPACITY): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    prepare(sql: string): Statement {
      const cached = statements.get(sql);
      if (cached !== undefined) {
        if (cached.busy) return database.prepare(sql);
        // Moved to the end: the Map's order is the order of last use.
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > capacity) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
      return statement;
    },
    close(): void {
      statements.clear();
      database.close();
    },
  };
}
