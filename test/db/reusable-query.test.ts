import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reusableQuery } from '../../src/db/reusable-query.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('a query compiled once (reusableQuery) on %s', (dialect) => {
  let t: TestApp;
  let first: TestClinic;
  let second: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    first = await t.createClinic({ name: 'First' });
    second = await t.createClinic({ name: 'Second' });
  });
  afterAll(async () => t.close());

  it('when it runs again with other arguments, then each run binds its own, in their places', async () => {
    const clinicNamed = reusableQuery((db, id: string, name: string) =>
      db.selectFrom('clinics').select(['id', 'name']).where('name', '=', name).where('id', '=', id),
    );
    expect(await clinicNamed(t.ctx.db, first.clinicId, 'First')).toEqual([{ id: first.clinicId, name: 'First' }]);
    expect(await clinicNamed(t.ctx.db, second.clinicId, 'Second')).toEqual([{ id: second.clinicId, name: 'Second' }]);
    expect(await clinicNamed(t.ctx.db, second.clinicId, 'First')).toEqual([]);
  });

  it('when inside a transaction, then it reads through the transaction', async () => {
    const clinicById = reusableQuery((db, id: string) => db.selectFrom('clinics').select('name').where('id', '=', id));
    const rows = await t.ctx.db.transaction().execute((trx) => clinicById(trx, first.clinicId));
    expect(rows).toEqual([{ name: 'First' }]);
  });

  it('when the build binds an argument twice or not at all, then its first run is refused', async () => {
    const twice = reusableQuery((db, id: string) =>
      db.selectFrom('clinics').select('id').where('id', '=', id).where('name', '!=', id),
    );
    await expect(twice(t.ctx.db, first.clinicId)).rejects.toThrow(/exactly once/);
    const ignored = reusableQuery((db, id: string) => db.selectFrom('clinics').select(['id', sql.lit(id.length).as('n')]));
    await expect(ignored(t.ctx.db, first.clinicId)).rejects.toThrow(/exactly once/);
  });
});
