import { existsSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN_CACHE_KIB, migrateToLatest, openDatabase, type DatabaseHandle } from '../../src/db/create-db.js';
import { REQUEST_LOG_CACHE_KIB, requestLogStoreFilename } from '../../src/db/request-log-store.js';
import { freshProcessDatabase, type ProcessDatabase } from '../helpers/process-database.js';

const row = (requestId: string) => ({
  request_id: requestId,
  clinic_id: '0190f0e0-0000-7000-8000-00000000c1c1',
  occurred_at: '2031-01-01T00:00:00.000Z',
  method: 'GET',
  route: '/api/external/carriers',
  status: 200,
  duration_ms: 3,
  api_key_id: null,
  oauth_client_id: null,
  idempotency_key: null,
  error_code: null,
  error_message: null,
});

/** The request log's own SQLite file (db/request-log-store.ts; docs/performance.md, "The request log"). */
describe('the request log’s database file on SQLite', () => {
  let database: ProcessDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
    await database?.drop();
  });

  const open = async (filename: string): Promise<DatabaseHandle> => {
    const opened = openDatabase({ kind: 'sqlite', filename });
    await migrateToLatest(opened.db);
    return opened;
  };
  /** `pragma schema.name`'s value. */
  const pragma = async (db: DatabaseHandle, schema: string, name: string): Promise<unknown> =>
    (await sql.raw<Record<string, unknown>>(`pragma ${schema}.${name}`).execute(db.db)).rows[0]?.[name];

  it('when the main file is named, then the log’s file sits beside it (in memory for an in-memory database)', () => {
    expect(requestLogStoreFilename('data/fulfillment.sqlite')).toBe('data/fulfillment.request-log.sqlite');
    expect(requestLogStoreFilename('/srv/app')).toBe('/srv/app.request-log');
    expect(requestLogStoreFilename(':memory:')).toBe(':memory:');
  });

  it('when rows are written, then they go to the log’s own file, which is not flushed (synchronous OFF) while the main file is (NORMAL)', async () => {
    database = await freshProcessDatabase('sqlite', 'request-log-store');
    const filename = database.config.kind === 'sqlite' ? database.config.filename : '';
    handle = await open(filename);
    await handle.db.insertInto('request_log').values(row('0190f0e0-0000-7000-8000-0000000000a1')).execute();

    expect(existsSync(requestLogStoreFilename(filename))).toBe(true);
    const inMain = await sql<{ n: number }>`select count(*) as n from main.sqlite_master where tbl_name = 'request_log'`.execute(
      handle.db,
    );
    expect(inMain.rows[0]?.n).toBe(0);
    const inStore = await sql<{ n: number }>`select count(*) as n from request_log_store.request_log`.execute(handle.db);
    expect(inStore.rows[0]?.n).toBe(1);
    expect(await pragma(handle, 'main', 'synchronous')).toBe(1);
    expect(await pragma(handle, 'request_log_store', 'synchronous')).toBe(0);
    expect(await pragma(handle, 'request_log_store', 'journal_mode')).toBe('wal');
  });

  it('when the database opens, then each file’s page cache is bounded, not the 16 MB a file better-sqlite3 builds SQLite with', async () => {
    database = await freshProcessDatabase('sqlite', 'request-log-store');
    handle = await open(database.config.kind === 'sqlite' ? database.config.filename : '');
    // Negative: a size in KiB (docs/performance.md, "Memory").
    expect(await pragma(handle, 'main', 'cache_size')).toBe(-MAIN_CACHE_KIB);
    expect(await pragma(handle, 'request_log_store', 'cache_size')).toBe(-REQUEST_LOG_CACHE_KIB);
    expect(MAIN_CACHE_KIB + REQUEST_LOG_CACHE_KIB).toBeLessThanOrEqual(10_000);
  });

  it('when the log’s file is lost while the main file is kept, then the database opens with an empty log that takes new rows', async () => {
    database = await freshProcessDatabase('sqlite', 'request-log-store');
    const filename = database.config.kind === 'sqlite' ? database.config.filename : '';
    handle = await open(filename);
    await handle.db.insertInto('request_log').values(row('0190f0e0-0000-7000-8000-0000000000a1')).execute();
    await handle.close();
    const store = requestLogStoreFilename(filename);
    for (const file of [store, `${store}-wal`, `${store}-shm`]) rmSync(file, { force: true });

    handle = await open(filename);
    expect(await handle.db.selectFrom('request_log').selectAll().execute()).toEqual([]);
    await handle.db.insertInto('request_log').values(row('0190f0e0-0000-7000-8000-0000000000a2')).execute();
    expect(await handle.db.selectFrom('request_log').select('request_id').execute()).toEqual([
      { request_id: '0190f0e0-0000-7000-8000-0000000000a2' },
    ]);
  });
});
