import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/database.js';

/** The dialects every data suite runs on: SQLite always, PostgreSQL when reachable (always in CI). */
export const DIALECTS: DialectName[] = inject('postgresUrl') ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  config: DatabaseConfig;
  /** PostgreSQL: the schema this test owns (search_path). */
  schema?: string;
  /** Drops what the test created. */
  drop(): Promise<void>;
}

/**
 * A database of the test's own: an in-memory SQLite database, or a fresh PostgreSQL schema that
 * `drop()` removes, so that suites run in parallel and leave nothing behind.
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') return { config: { kind: 'sqlite', filename: ':memory:' }, drop: async () => undefined };
  const url = inject('postgresUrl');
  if (!url) throw new Error('PostgreSQL is not available for this test run');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await maintenanceQuery(url, `create schema ${schema}`);
  return {
    config: { kind: 'postgres', url },
    schema,
    drop: () => maintenanceQuery(url, `drop schema if exists ${schema} cascade`),
  };
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
