import { randomUUID } from 'node:crypto';
import { InsertQueryNode, sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChange } from '../../src/changes/run-change.js';
import { renumber, writesAsOneStatement } from '../../src/db/one-statement.js';
import { insertRows } from '../../src/db/row-insert.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * A change's INSERTs compiled once per shape (src/db/row-insert.ts) and, on PostgreSQL, sent as one
 * named statement (src/db/one-statement.ts): the SQL and parameters must be exactly Kysely's, and
 * whatever cannot take the cached path must still be written correctly.
 */
describe.each(DIALECTS)('inserts compiled once per shape, on %s', (dialect) => {
  let t: TestApp;
  const AT = '2026-11-25T00:00:00.000Z';
  const clinicRow = (id: string, name = 'Clinic') => ({ id, name, free_shipping: 0, created_at: AT });

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when a shape is compiled a first and a second time, then both give exactly the SQL and parameters Kysely gives, with the second rows’ values', async () => {
    const first = [clinicRow(randomUUID(), 'First'), clinicRow(randomUUID(), 'Second')];
    const second = [clinicRow(randomUUID(), 'Third'), clinicRow(randomUUID(), 'Fourth')];
    for (const rows of [first, second]) {
      const ours = insertRows(t.ctx.db, 'clinics', rows).compile();
      const kysely = t.ctx.db.insertInto('clinics').values(rows).compile();
      expect(ours.sql).toBe(kysely.sql);
      expect(ours.parameters).toEqual(kysely.parameters);
    }
  });

  it('when the conflict clause is asked for, then a row already there is skipped, as Kysely’s onConflict do nothing', async () => {
    const id = randomUUID();
    await t.ctx.db.insertInto('clinics').values(clinicRow(id, 'Kept')).execute();
    const write = insertRows(t.ctx.db, 'clinics', [clinicRow(id, 'Ignored')], { doNothingOnConflict: 'id' });
    await t.ctx.db.executeQuery(write.compile());
    await t.ctx.db.executeQuery(write.compile());
    const stored = await t.ctx.db.selectFrom('clinics').select('name').where('id', '=', id).execute();
    expect(stored).toEqual([{ name: 'Kept' }]);
  });

  it('when rows differ in columns, or a value is undefined or an expression, then Kysely builds them and they are stored as given', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const c = randomUUID();
    // Same columns in another order than the row above: a shape of its own, still Kysely's SQL.
    const reordered = { name: 'Reordered', id: a, created_at: AT, free_shipping: 1 };
    const expression = { ...clinicRow(b), name: sql<string>`${'Expr'} || ${'ession'}` };
    for (const rows of [[reordered], [expression], [{ ...clinicRow(c), free_shipping: undefined }]]) {
      await runChange(t.ctx, null, (change) => change.write(insertRows(t.ctx.db, 'clinics', rows as never)));
    }
    const stored = await t.ctx.db
      .selectFrom('clinics')
      .select(['id', 'name', 'free_shipping'])
      .where('id', 'in', [a, b, c])
      .orderBy('name')
      .execute();
    expect(stored).toEqual(
      [
        { id: c, name: 'Clinic', free_shipping: 0 },
        { id: b, name: 'Expression', free_shipping: 0 },
        { id: a, name: 'Reordered', free_shipping: 1 },
      ].sort((x, y) => x.name.localeCompare(y.name)),
    );
  });

  it('when a handle has a plugin, then every compile goes through it, cached shape or not', async () => {
    let seen = 0;
    const plugin: KyselyPlugin = {
      transformQuery: (args) => {
        if (InsertQueryNode.is(args.node)) seen += 1;
        return args.node;
      },
      transformResult: async (args) => Promise.resolve(args.result),
    };
    const withPlugin = t.ctx.db.withPlugin(plugin);
    insertRows(t.ctx.db, 'clinics', [clinicRow(randomUUID())]).compile();
    insertRows(withPlugin, 'clinics', [clinicRow(randomUUID())]).compile();
    insertRows(withPlugin, 'clinics', [clinicRow(randomUUID())]).compile();
    expect(seen).toBe(2);
  });

  it('when a change writes several shaped rows, then they are all stored, and a failing one leaves none', async () => {
    const ok = randomUUID();
    await runChange(t.ctx, null, (change) =>
      change.write(
        insertRows(t.ctx.db, 'clinics', [clinicRow(ok)]),
        insertRows(t.ctx.db, 'medications', [
          {
            id: randomUUID(),
            clinic_id: ok,
            name: 'Semaglutide',
            name_key: 'semaglutide',
            strength: null,
            dosage_form: null,
            created_at: AT,
            formula_version: 0,
          },
        ]),
      ),
    );
    const broken = randomUUID();
    const failing = runChange(t.ctx, null, (change) =>
      change.write(
        insertRows(t.ctx.db, 'clinics', [clinicRow(broken)]),
        // The same id twice: the second row breaks the primary key, so the whole change is undone.
        insertRows(t.ctx.db, 'clinics', [clinicRow(broken)]),
      ),
    );
    await expect(failing).rejects.toThrow();
    const clinics = await t.ctx.db.selectFrom('clinics').select('id').where('id', 'in', [ok, broken]).execute();
    expect(clinics).toEqual([{ id: ok }]);
    const medications = await t.ctx.db.selectFrom('medications').select('clinic_id').where('clinic_id', '=', ok).execute();
    expect(medications).toHaveLength(1);
  });
});

describe('one statement of CTEs (PostgreSQL)', () => {
  it('when placeholders are renumbered, then those in quoted identifiers and string literals are left alone', () => {
    expect(renumber(`insert into "t$1" ("a", "b") values ($1, $2) returning '$1', $10`, 3)).toBe(
      `insert into "t$1" ("a", "b") values ($4, $5) returning '$1', $13`,
    );
    expect(renumber(`select 'it''s $2', $2`, 1)).toBe(`select 'it''s $2', $3`);
  });

  it('when writes are joined, then each one’s parameters follow the previous ones, the notification last, and the same texts get the same name', () => {
    const writes = [
      { sql: 'insert into "a" ("x") values ($1)', parameters: ['one'] },
      { sql: 'insert into "b" ("y", "z") values ($1, $2)', parameters: ['two', 3] },
    ].map((write) => ({ ...write, query: undefined as never, queryId: { queryId: 'q' } }));
    const statement = writesAsOneStatement(writes, 'wakeup');
    expect(statement.sql).toBe(
      'with "write_0" as (insert into "a" ("x") values ($1)), "write_1" as (insert into "b" ("y", "z") values ($2, $3)) select pg_notify($4, current_schema())',
    );
    expect(statement.parameters).toEqual(['one', 'two', 3, 'wakeup']);
    const again = writesAsOneStatement(writes, 'wakeup');
    expect(again.name).toBe(statement.name);
    expect(writesAsOneStatement(writes, null).name).not.toBe(statement.name);
  });
});
