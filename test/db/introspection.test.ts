import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/create-db.js';
import { createTestDatabase, DIALECTS } from '../helpers/test-db.js';

/**
 * Kysely's migrator introspects before it migrates. Its stock PostgreSQL introspector reads every
 * schema and resolves each table by name, so DDL committed meanwhile by another session (another
 * instance, another test file dropping its schema) could fail a start with `relation "…" does not
 * exist`. Ours reads only the connection's schema (db/current-schema-introspector.ts).
 */
describe.skipIf(!DIALECTS.includes('postgres'))('introspection for migrations on PostgreSQL', () => {
  it('when other schemas hold tables, then introspection and migration see only our schema', async () => {
    const ours = await createTestDatabase('postgres');
    const other = await createTestDatabase('postgres');
    const session = new pg.Client({ connectionString: inject('postgresUrl') ?? '' });
    await session.connect();
    const handle = openDatabase(ours.config, { schema: ours.schema, poolSize: 2 });
    try {
      await session.query(`create table ${other.schema ?? 'public'}.kysely_migration (name text primary key)`);
      await migrateToLatest(handle.db, ours.schema);

      const tables = await handle.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([ours.schema]));
      expect(tables.map((t) => t.name)).toEqual(
        expect.arrayContaining(['kysely_migration', 'medication_items', 'outbox_events']),
      );
      expect((await handle.db.introspection.getTables()).map((t) => t.name)).not.toContain('kysely_migration');
      const items = tables.find((t) => t.name === 'medication_items');
      expect(items?.columns.find((c) => c.name === 'refills_used')).toEqual({
        name: 'refills_used',
        dataType: 'int4',
        dataTypeSchema: 'pg_catalog',
        isNullable: false,
        hasDefaultValue: true,
        isAutoIncrementing: false,
      });
    } finally {
      await handle.close();
      await session.end();
      await ours.drop();
      await other.drop();
    }
  });
});
