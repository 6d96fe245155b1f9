import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresAdapter, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { cachingStatements } from './sqlite-statement-cache.js';
import { registerDirectPostgres, registerDirectSqlite } from './direct-statement.js';
import { CurrentSchemaPostgresDialect } from './current-schema-introspector.js';
import type { Database, Db, DialectName } from './database.js';
import { migrations } from './migrations/index.js';
import { attachRequestLogStore } from './request-log-store.js';

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  /** PostgreSQL: the schema the connections were opened on, when one was named (what `migrateToLatest` takes). */
  schema?: string;
  /** Closes every connection. */
  close(): Promise<void>;
  /** PostgreSQL only: the pool's counts right now, read by the metrics at scrape time. SQLite has no pool. */
  poolUsage?: () => PoolUsage;
}

/** How the PostgreSQL pool is used at one moment (pg.Pool's own counters). */
export interface PoolUsage {
  /** Open connections, idle or lent out. */
  total: number;
  idle: number;
  /** Queries waiting for a connection because every one is lent out. */
  waiting: number;
  /** The most connections the pool opens. */
  max: number;
}

export interface PostgresOptions {
  /** Sets the connection's search_path (tests give every file its own schema). */
  schema?: string;
  poolSize?: number;
}

/**
 * The main file's page cache in KiB. better-sqlite3 builds SQLite with 16 MB a file
 * (SQLITE_DEFAULT_CACHE_SIZE=-16000), filled within minutes of load and never given back: 32 MB of
 * the server's resident memory with the request log's file. The hot pages (keys, clinics, the right
 * edges of the time-ordered indexes) fit in far less; a page missed is read from the system's file
 * cache (docs/performance.md, "Memory").
 */
export const MAIN_CACHE_KIB = 8_000;

/** Opens the configured database. Does not migrate: call `migrateToLatest`. */
export function openDatabase(config: DatabaseConfig, options: PostgresOptions = {}): DatabaseHandle {
  if (config.kind === 'postgres') {
    // int8 (counts, sums) as JS numbers: every value we count fits in 2^53.
    pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
    const max = options.poolSize ?? 10;
    const pool = new pg.Pool({
      connectionString: config.url,
      max,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An idle client's error (the server restarting) must not crash the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
    registerDirectPostgres(db, pool);
    const poolUsage = (): PoolUsage => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max });
    return {
      db,
      dialect: 'postgres',
      ...(options.schema ? { schema: options.schema } : {}),
      close: () => db.destroy(),
      poolUsage,
    };
  }

  if (config.filename !== ':memory:') mkdirSync(path.dirname(path.resolve(config.filename)), { recursive: true });
  const sqlite = new SQLite(config.filename);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`cache_size = ${-MAIN_CACHE_KIB}`);
  attachRequestLogStore(sqlite, config.filename);
  const statements = cachingStatements(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  registerDirectSqlite(db, sqlite, (text) => statements.prepare(text) as unknown as SQLite.Statement);
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** How a start banner names the configured database: where SQLite's file is, or PostgreSQL. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.kind === 'postgres') return 'PostgreSQL';
  return `SQLite ${config.filename === ':memory:' ? 'in memory' : path.resolve(config.filename)}`;
}

/** Names the PostgreSQL advisory lock that serializes migrations of one schema across processes. */
const MIGRATION_LOCK = 'partner-fulfillment:migrations:';

/**
 * Brings the schema to the newest migration; throws with the failing migration's name. On
 * PostgreSQL, instances starting together take turns under an advisory lock on the schema (held on
 * one session for the whole run, Kysely's own checks included): the first migrates, the others then
 * find nothing left to do. SQLite is one process.
 */
export async function migrateToLatest(db: Db, schema?: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    await runMigrations(db, schema);
    return;
  }
  await db.connection().execute(async (session) => {
    const key = sql`hashtext(${MIGRATION_LOCK} || current_schema())`;
    await sql`select pg_advisory_lock(${key})`.execute(session);
    try {
      await runMigrations(session, schema);
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(session);
    }
  });
}

async function runMigrations(db: Db, schema: string | undefined): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Kysely looks for its own tables in every schema unless told which one is ours.
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const message = error instanceof Error ? error.message : inspect(error);
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${message}`, { cause: error });
  }
}

/** True when the database answers a trivial query (readiness). */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
