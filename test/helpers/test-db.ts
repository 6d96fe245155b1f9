import { randomBytes } from 'node:crypto';
import { Kysely } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import { migrateToLatest } from '../../src/db/create-db.js';
import { CurrentSchemaPostgresDialect } from '../../src/db/current-schema-introspector.js';
import type { Database, DialectName } from '../../src/db/database.js';

/** The dialects every data suite runs on: SQLite always, PostgreSQL when reachable (always in CI). */
export const DIALECTS: DialectName[] = inject('postgresUrl') ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  config: DatabaseConfig;
  /** PostgreSQL: the schema this test owns (search_path). */
  schema?: string;
  /** Drops what the test created. */
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /**
   * PostgreSQL: the schema is brought to the newest migration before it is handed over, by replaying
   * the statements the migrations ran on this process's first such schema (`migrateFromRecording`).
   * A runtime opened on it then finds nothing to migrate. SQLite ignores it (its runtime migrates).
   */
  migrated?: boolean;
}

/**
 * A database of the test's own: an in-memory SQLite database, or a fresh PostgreSQL schema that
 * `drop()` removes, so that suites run in parallel and leave nothing behind.
 */
export async function createTestDatabase(dialect: DialectName, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (dialect === 'sqlite') return { config: { kind: 'sqlite', filename: ':memory:' }, drop: async () => undefined };
  const url = inject('postgresUrl');
  if (!url) throw new Error('PostgreSQL is not available for this test run');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await maintenanceQuery(url, `create schema ${schema}`);
  if (options.migrated) await migrateFromRecording(url, schema);
  return {
    config: { kind: 'postgres', url },
    schema,
    drop: () => maintenanceQuery(url, `drop schema if exists ${schema} cascade`),
  };
}

interface Recording {
  /** The schema the migrations ran on: its name, in the statements, is replaced by the next schema's. */
  schema: string;
  statements: { sql: string; parameters: readonly unknown[] }[];
}

let recording: Promise<Recording> | undefined;

/**
 * Migrates `schema`. The first time in a process, by running the migrations (the real migrator,
 * under its advisory lock) while recording every statement they send; afterwards, by replaying
 * those statements, with their parameters, in one transaction on a connection to the new schema.
 * A PostgreSQL schema cannot be copied, and running the migrations took a start about 0.6 to 1.4 s
 * of waiting and 0.3 s of PostgreSQL's CPU (30 migrations, a commit each, Kysely's checks between
 * them); the replay about 0.3 s (CONTRIBUTING.md, "How long the suite takes").
 * test/db/migrated-schema-copy.test.ts holds that the replayed schema is what the migrations make.
 */
export async function migrateFromRecording(url: string, schema: string): Promise<void> {
  if (!recording) {
    const recorded = record(url, schema);
    recording = recorded;
    try {
      await recorded;
    } catch (error) {
      recording = undefined;
      throw error;
    }
    return;
  }
  const { schema: recordedSchema, statements } = await recording;
  const renamed = (value: unknown) => (typeof value === 'string' ? value.replaceAll(recordedSchema, schema) : value);
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query('begin');
    for (const statement of statements) await client.query(renamed(statement.sql) as string, statement.parameters.map(renamed));
    await client.query('commit');
  } finally {
    await client.end();
  }
}

async function record(url: string, schema: string): Promise<Recording> {
  const statements: Recording['statements'] = [];
  const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
  const db = new Kysely<Database>({
    dialect: new CurrentSchemaPostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') statements.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  try {
    await migrateToLatest(db, schema);
  } finally {
    await db.destroy();
  }
  return { schema, statements };
}

async function maintenanceQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
