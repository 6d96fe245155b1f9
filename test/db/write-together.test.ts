import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/create-db.js';
import type { Database, Db, DbOrTrx, DialectName } from '../../src/db/database.js';
import { writeTogether } from '../../src/db/write-together.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';

describe.each(DIALECTS)('writes made together on %s', (dialect: DialectName) => {
  let database: TestDatabase;
  let db: Db;
  /** Every statement sent to the database, BEGIN and COMMIT included. */
  const sent: string[] = [];
  const log = (event: LogEvent) => void sent.push(event.query.sql);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    if (database.config.kind === 'postgres') {
      const pool = new pg.Pool({
        connectionString: database.config.url,
        max: 2,
        options: `-c search_path=${database.schema ?? 'public'}`,
      });
      db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    } else {
      const sqlite = new SQLite(':memory:');
      sqlite.pragma('foreign_keys = ON');
      db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log });
    }
    await migrateToLatest(db, database.schema);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const clinic = (id: string) => (handle: DbOrTrx) =>
    handle.insertInto('clinics').values({ id, name: 'Clinic', free_shipping: 0, created_at: new Date(0).toISOString() });
  const key = (clinicId: string) => (handle: DbOrTrx) =>
    handle.insertInto('api_keys').values({
      id: randomUUID(),
      clinic_id: clinicId,
      environment: 'development',
      key_hash: randomUUID(),
      key_prefix: 'dev_x',
      created_at: new Date(0).toISOString(),
      revoked_at: null,
    });
  const keysOf = async (clinicId: string) =>
    (await db.selectFrom('api_keys').select('id').where('clinic_id', '=', clinicId).execute()).length;
  const clinicExists = async (clinicId: string) =>
    (await db.selectFrom('clinics').select('id').where('id', '=', clinicId).executeTakeFirst()) !== undefined;

  it('when every write is valid, then all of them land', async () => {
    const id = randomUUID();
    await writeTogether(db, dialect, (handle) => [clinic(id)(handle), key(id)(handle), key(id)(handle)]);
    expect(await clinicExists(id)).toBe(true);
    expect(await keysOf(id)).toBe(2);
  });

  it('when one write breaks a foreign key, then none of them lands', async () => {
    const id = randomUUID();
    const write = writeTogether(db, dialect, (handle) => [clinic(id)(handle), key(id)(handle), key(randomUUID())(handle)]);
    await expect(write).rejects.toThrow(/foreign key/i);
    expect(await clinicExists(id)).toBe(false);
    expect(await keysOf(id)).toBe(0);
  });

  it('when more must happen in the same transaction, then a failure there undoes the writes', async () => {
    const id = randomUUID();
    const write = writeTogether(
      db,
      dialect,
      (handle) => [clinic(id)(handle)],
      async (trx) => {
        await key(id)(trx).execute();
        throw new Error('the idempotency record could not be written');
      },
    );
    await expect(write).rejects.toThrow('the idempotency record could not be written');
    expect(await clinicExists(id)).toBe(false);
  });

  it.runIf(dialect === 'postgres')(
    'when nothing else must happen, then PostgreSQL is asked once: no BEGIN, no COMMIT',
    async () => {
      const id = randomUUID();
      sent.length = 0;
      await writeTogether(db, dialect, (handle) => [clinic(id)(handle), key(id)(handle), key(id)(handle)]);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^with "write_0" as \(insert into "clinics"/);
    },
  );
});
