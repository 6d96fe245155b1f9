import { Migrator, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../../src/db/create-db.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';

/** A row of migration 015's shape (a row id of its own, the request id beside it). */
const oldRow = (id: string, requestId: string, status: number) => ({
  id,
  clinic_id: '0190f0e0-0000-7000-8000-00000000c1c1',
  occurred_at: '2031-01-01T00:00:00.000Z',
  method: 'GET',
  route: '/api/external/carriers',
  status,
  duration_ms: 3,
  request_id: requestId,
  api_key_id: '0190f0e0-0000-7000-8000-00000000ae01',
  oauth_client_id: null,
  idempotency_key: null,
  error_code: null,
  error_message: null,
});

describe.each(DIALECTS)('migration 020 (the request log keyed by request id) on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('when a log written before it is migrated, then each entry is kept under its request id, with every field, and a duplicate request id keeps one entry', async () => {
    database = await createTestDatabase(dialect);
    handle = openDatabase(database.config, database.schema ? { schema: database.schema } : {});
    const db = handle.db as unknown as Kysely<any>;
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
      ...(database.schema ? { migrationTableSchema: database.schema } : {}),
    });
    expect((await migrator.migrateTo('019_webhook_secret_rotation')).error).toBeUndefined();
    const first = oldRow('0190f0e0-0000-7000-8000-000000000001', '0190f0e0-0000-7000-8000-0000000000a1', 200);
    const second = oldRow('0190f0e0-0000-7000-8000-000000000002', '0190f0e0-0000-7000-8000-0000000000a2', 404);
    const again = oldRow('0190f0e0-0000-7000-8000-000000000003', '0190f0e0-0000-7000-8000-0000000000a2', 404);
    await db.insertInto('request_log').values([first, second, again]).execute();

    await migrateToLatest(handle.db, database.schema);

    const rows = await handle.db.selectFrom('request_log').selectAll().orderBy('request_id').execute();
    const { id: _first, ...firstKept } = first;
    const { id: _second, ...secondKept } = second;
    expect(rows).toEqual([firstKept, secondKept]);
  });
});
