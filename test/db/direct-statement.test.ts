import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChange } from '../../src/changes/run-change.js';
import type { DbOrTrx } from '../../src/db/database.js';
import { runWritesDirectly } from '../../src/db/direct-statement.js';
import { reusableQuery } from '../../src/db/reusable-query.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Hot reads and a change's rows run straight on the driver (src/db/direct-statement.ts). On SQLite
 * there is one connection: a direct statement run while another request's transaction is open
 * would read its uncommitted rows, or write into it. These hold that it never does, on both
 * databases (PostgreSQL's pool gives each its own connection; the same answers are expected).
 */
describe.each(DIALECTS)('statements run directly on the driver, on %s', (dialect) => {
  let t: TestApp;
  const AT = '2026-11-25T00:00:00.000Z';
  const clinicNamed = reusableQuery((db, id: string) => db.selectFrom('clinics').select('name').where('id', '=', id));
  const clinic = (handle: DbOrTrx, id: string) =>
    handle.insertInto('clinics').values({ id, name: 'Clinic', free_shipping: 0, created_at: AT });

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when another transaction holds a row it has not committed, then a hot read does not see it, even once that transaction is rolled back', async () => {
    const id = randomUUID();
    const trx = await t.ctx.db.startTransaction().execute();
    await clinic(trx, id).execute();
    const read = clinicNamed(t.ctx.db, id);
    await trx.rollback().execute();
    expect(await read).toEqual([]);
  });

  it('when a committed row is read again and again, then every read finds it (the statement is reused)', async () => {
    const id = randomUUID();
    await clinic(t.ctx.db, id).execute();
    for (let i = 0; i < 3; i++) expect(await clinicNamed(t.ctx.db, id)).toEqual([{ name: 'Clinic' }]);
  });

  it('when another transaction is open, then a change’s rows are not run directly (they would join it), and wait for it through Kysely', async () => {
    const id = randomUUID();
    const other = await t.ctx.db.startTransaction().execute();
    await clinic(other, randomUUID()).execute();
    expect(runWritesDirectly(t.ctx.db, [clinic(t.ctx.db, id).compile()])).toBe(false);
    const change = runChange(t.ctx, null, (c) => c.write(clinic(t.ctx.db, id)));
    await other.rollback().execute();
    await change;
    expect(await clinicNamed(t.ctx.db, id)).toEqual([{ name: 'Clinic' }]);
  });

  it('when the second row of a change breaks a constraint, then the first one is not kept either', async () => {
    const first = randomUUID();
    const change = runChange(t.ctx, null, (c) => {
      c.write(clinic(t.ctx.db, first));
      c.write(clinic(t.ctx.db, first));
    });
    await expect(change).rejects.toThrow(/unique|duplicate/i);
    expect(await clinicNamed(t.ctx.db, first)).toEqual([]);
  });
});
