import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/create-db.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';

/**
 * The tests' PostgreSQL schemas are migrated by replaying the statements the migrations ran on the
 * process's first schema (test/helpers/test-db.ts, `migrated`): each test must still meet the
 * schema the migrations make, or the tests would test another database than the one deployed.
 */

/** Everything of a schema that a query can meet, its own name written as SCHEMA. */
async function describeSchema(url: string, schema: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async (text: string) => (await client.query(text, [schema])).rows;
    const catalog = {
      relations: await rows(`select c.relname, c.relkind, c.relpersistence from pg_class c
        join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 order by c.relname`),
      columns: await rows(`select c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) as type,
          a.attnotnull, a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid) as "default"
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where n.nspname = $1 and a.attnum > 0 and not a.attisdropped order by c.relname, a.attnum`),
      indexes: await rows(`select indexname, indexdef from pg_indexes where schemaname = $1 order by indexname`),
      constraints: await rows(`select c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid) as definition
        from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 order by c.relname, k.conname`),
      triggers: await rows(`select c.relname, t.tgname, pg_get_triggerdef(t.oid) as definition
        from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and not t.tgisinternal order by c.relname, t.tgname`),
      functions: await rows(`select p.proname, pg_get_functiondef(p.oid) as definition from pg_proc p
        join pg_namespace n on n.oid = p.pronamespace where n.nspname = $1 order by p.proname`),
    };
    // Every table's rows, but the times a migration stamps with its own clock (the seeded carriers'
    // created_at, the migrator's timestamps): the replay keeps those of the recorded run.
    const tables = catalog.relations.filter((relation) => relation.relkind === 'r').map((relation) => relation.relname as string);
    const data: Record<string, string[]> = {};
    for (const table of tables) {
      const { rows: content } = await client.query(`select to_jsonb(t) as row from "${schema}"."${table}" t`);
      data[table] = content
        .map(({ row }: { row: Record<string, unknown> }) =>
          JSON.stringify(Object.entries(row).filter(([column]) => !/(_at|^timestamp)$/.test(column))),
        )
        .sort();
    }
    return JSON.parse(JSON.stringify({ ...catalog, data }).replaceAll(schema, 'SCHEMA')) as Record<string, unknown>;
  } finally {
    await client.end();
  }
}

describe.skipIf(!DIALECTS.includes('postgres'))('a test schema migrated from the recording', () => {
  const databases: TestDatabase[] = [];
  let migrated: TestDatabase;
  let replayed: TestDatabase;

  beforeAll(async () => {
    migrated = await createTestDatabase('postgres');
    databases.push(migrated);
    const handle = openDatabase(migrated.config, { schema: migrated.schema!, poolSize: 1 });
    try {
      await migrateToLatest(handle.db, migrated.schema);
    } finally {
      await handle.close();
    }
    // The process's first migrated schema may be the recorded one: the second is a replay.
    for (let i = 0; i < 2; i++) databases.push(await createTestDatabase('postgres', { migrated: true }));
    replayed = databases[2]!;
  });
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  it('when a schema is made by replaying the migrations’ statements, then it holds what running the migrations makes', async () => {
    const url = migrated.config.kind === 'postgres' ? migrated.config.url : '';
    const expected = await describeSchema(url, migrated.schema!);
    expect((expected.relations as unknown[]).length).toBeGreaterThan(40);
    expect(await describeSchema(url, replayed.schema!)).toEqual(expected);
  });
});
