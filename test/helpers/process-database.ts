import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/create-db.js';
import type { DialectName } from '../../src/db/database.js';
import { databaseUrlOf } from './server-process.js';
import { createTestDatabase } from './test-db.js';

/**
 * A database that server processes and the test share: a SQLite file (in-memory SQLite dies with
 * its process), or a PostgreSQL schema of the test's own. `drop()` removes it.
 */
export interface ProcessDatabase {
  /** What a server process needs to open it. */
  readonly env: { DATABASE_URL: string };
  readonly config: DatabaseConfig;
  readonly schema?: string;
  drop(): Promise<void>;
}

export async function freshProcessDatabase(dialect: DialectName, name: string): Promise<ProcessDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), `fulfillment-${name}-`));
    const filename = path.join(dir, `${name}.sqlite`);
    return {
      env: { DATABASE_URL: filename },
      config: { kind: 'sqlite', filename },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = await createTestDatabase('postgres');
  return {
    env: { DATABASE_URL: databaseUrlOf(database) },
    config: database.config,
    ...(database.schema ? { schema: database.schema } : {}),
    drop: () => database.drop(),
  };
}

/** Runs `query` on the database directly, as a second process would. */
export async function inDatabase<T>(
  database: ProcessDatabase,
  query: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>,
): Promise<T> {
  const handle = openDatabase(database.config, { ...(database.schema ? { schema: database.schema } : {}), poolSize: 1 });
  try {
    return await query(handle.db);
  } finally {
    await handle.close();
  }
}
