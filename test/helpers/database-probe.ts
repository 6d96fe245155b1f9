import SQLite from 'better-sqlite3';
import { Redis } from 'ioredis';
import { DefaultQueryCompiler } from 'kysely';
import pg from 'pg';

/**
 * Counts what the server asks of its databases, seen from outside src/: the drivers' own prototypes
 * are wrapped while a window is open (better-sqlite3's Database and Statement, pg's Client, Kysely's
 * query compiler, ioredis), so every query counts whichever path sent it (Kysely, a raw `sql`
 * template, a driver call of src/db/). Blind spots are listed in request-costs.ts.
 */
export interface DatabaseTally {
  /** Statements executed: better-sqlite3 run/get/all/iterate/exec/pragma, pg `query` calls. */
  queries: number;
  /** Statements the database parsed and planned: better-sqlite3 `prepare` (and `pragma`); pg queries without a name, and named ones on their first use on a connection. */
  prepared: number;
  /** pg only: queries sent with a `name` (a prepared statement the connection keeps). */
  named: number;
  /** Kysely `compileQuery` calls: a query built from its syntax tree into SQL text. */
  compiled: number;
  /** BEGIN (or START TRANSACTION), COMMIT and ROLLBACK statements seen among `queries`. */
  begins: number;
  commits: number;
  rollbacks: number;
  /** pg connections opened (`Client.connect`); the pool should open none once warm. */
  connections: number;
  /** Redis commands sent (ioredis `sendCommand`, Lua scripts included). */
  redisCommands: number;
  /** Each statement's text (whitespace collapsed) and how many times it was executed. */
  sql: Map<string, number>;
}

export function emptyDatabaseTally(): DatabaseTally {
  return {
    queries: 0,
    prepared: 0,
    named: 0,
    compiled: 0,
    begins: 0,
    commits: 0,
    rollbacks: 0,
    connections: 0,
    redisCommands: 0,
    sql: new Map(),
  };
}

type Method = (this: any, ...args: any[]) => any;

/** Replaces `target[name]` by a wrapper that calls `before` then the original; returns the undo. */
function wrap(target: object, name: string, before: (self: any, args: any[]) => void): () => void {
  const owner = target as Record<string, Method>;
  const original = owner[name];
  if (typeof original !== 'function') throw new Error(`database-probe: ${name} is not a method to wrap`);
  owner[name] = function (this: unknown, ...args: unknown[]) {
    before(this, args);
    return original.apply(this, args);
  };
  return () => {
    owner[name] = original;
  };
}

let sqliteStatementPrototype: object | undefined;

/** better-sqlite3 does not export its Statement class: its prototype is read off a throwaway statement. */
function statementPrototype(): object {
  if (!sqliteStatementPrototype) {
    const scratch = new SQLite(':memory:');
    sqliteStatementPrototype = Object.getPrototypeOf(scratch.prepare('select 1')) as object;
    scratch.close();
  }
  return sqliteStatementPrototype;
}

/** Whether a pg connection already holds (or has been sent) the named statement: pg then skips its Parse. */
function hasParsed(client: pg.Client, name: string): boolean {
  // pg keeps these on its connection (lib/query.js `hasBeenParsed`); they are not in its typings.
  type Statements = Record<string, string | undefined>;
  const { connection } = client as unknown as {
    connection?: { parsedStatements?: Statements; submittedNamedStatements?: Statements };
  };
  return connection?.parsedStatements?.[name] !== undefined || connection?.submittedNamedStatements?.[name] !== undefined;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Starts counting into `tally`; the returned function stops and restores every driver. Only one
 * probe may be open at a time (the wrappers are process-wide).
 */
export function probeDatabases(tally: DatabaseTally): () => void {
  const executed = (text: string) => {
    const sql = normalize(text);
    tally.queries++;
    tally.sql.set(sql, (tally.sql.get(sql) ?? 0) + 1);
    if (/^(begin|start transaction)\b/i.test(sql)) tally.begins++;
    else if (/^commit\b/i.test(sql)) tally.commits++;
    else if (/^rollback\b(?!\s+to\b)/i.test(sql)) tally.rollbacks++;
  };
  const sqliteDatabase = SQLite.prototype as unknown as object;
  const undo = [
    wrap(sqliteDatabase, 'prepare', () => tally.prepared++),
    wrap(sqliteDatabase, 'exec', (_db, [source]) => executed(String(source))),
    wrap(sqliteDatabase, 'pragma', (_db, [source]) => {
      tally.prepared++;
      executed(`PRAGMA ${String(source)}`);
    }),
    ...['run', 'get', 'all', 'iterate'].map((name) =>
      wrap(statementPrototype(), name, (statement: { source: string }) => executed(statement.source)),
    ),
    wrap(pg.Client.prototype, 'query', (client: pg.Client, [config]) => {
      const { text, name } = typeof config === 'string' ? { text: config, name: undefined } : (config as pg.QueryConfig);
      executed(text);
      if (name) tally.named++;
      if (!name || !hasParsed(client, name)) tally.prepared++;
    }),
    wrap(pg.Client.prototype, 'connect', () => tally.connections++),
    wrap(DefaultQueryCompiler.prototype, 'compileQuery', () => tally.compiled++),
    wrap(Redis.prototype, 'sendCommand', () => tally.redisCommands++),
  ];
  return () => {
    for (const restore of undo.reverse()) restore();
  };
}
