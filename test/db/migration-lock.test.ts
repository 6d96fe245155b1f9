import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../../src/db/create-db.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';

const LOCK_KEY = (schema: string) => `hashtext('partner-fulfillment:migrations:' || '${schema}')`;

/** Several instances share one PostgreSQL database; SQLite is one process. */
describe.skipIf(!DIALECTS.includes('postgres'))('migrations of instances starting together on PostgreSQL', () => {
  async function withInstances<T>(
    count: number,
    run: (database: TestDatabase, instances: DatabaseHandle[]) => Promise<T>,
  ): Promise<T> {
    const database = await createTestDatabase('postgres');
    const instances = Array.from({ length: count }, () =>
      openDatabase(database.config, { schema: database.schema, poolSize: 2 }),
    );
    try {
      return await run(database, instances);
    } finally {
      await Promise.all(instances.map((i) => i.close()));
      await database.drop();
    }
  }

  const applied = async (instance: DatabaseHandle) =>
    (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(instance.db)).rows.map((r) => r.name);

  it('when four instances start together on an empty database, then all start and every migration runs once', async () => {
    await withInstances(4, async (database, instances) => {
      await Promise.all(instances.map((i) => migrateToLatest(i.db, database.schema)));
      expect(await applied(instances[0]!)).toEqual(Object.keys(migrations));
    });
  });

  it('when another instance holds the migration lock, then a starting instance waits for it before touching the schema', async () => {
    await withInstances(1, async (database, [instance]) => {
      const schema = database.schema ?? 'public';
      const other = new pg.Client({ connectionString: inject('postgresUrl') ?? '' });
      await other.connect();
      try {
        await other.query(`select pg_advisory_lock(${LOCK_KEY(schema)})`);
        const starting = migrateToLatest(instance!.db, schema);
        // Wait until the starting instance is queued behind the lock (an event in pg_locks, not a sleep).
        for (;;) {
          const { rows } = await other.query<{ waiting: number }>(
            `select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted and objid = (${LOCK_KEY(schema)})::oid`,
          );
          if (rows[0]?.waiting === 1) break;
        }
        const tables = await other.query(`select 1 from pg_tables where schemaname = $1`, [schema]);
        expect(tables.rowCount).toBe(0);

        await other.query(`select pg_advisory_unlock(${LOCK_KEY(schema)})`);
        await starting;
        expect(await applied(instance!)).toEqual(Object.keys(migrations));
      } finally {
        await other.end();
      }
    });
  });
});
