import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/create-db.js';
import {
  createMedicationRequest,
  createMedicationRequestSetup,
  getMedicationRequest,
  type MedicationRequestSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('migrations of a deployed database on %s', (dialect) => {
  let t: TestApp;
  let setup: MedicationRequestSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createMedicationRequestSetup(t);
  });
  afterAll(async () => t.close());

  it('when a database from before 004_medication_items holds medication requests, then upgrading keeps every medication item', async () => {
    const id = await createMedicationRequest(t, setup);
    const before = await getMedicationRequest(t, setup.clinic, id);
    expect(before.medication_requests.length).toBeGreaterThan(0);

    // Put the database back as 003 left it, with its data: the old table name, 004 not applied.
    await sql`alter table medication_items rename to prescription_items`.execute(t.ctx.db);
    await sql`delete from kysely_migration where name = '004_medication_items'`.execute(t.ctx.db);
    const oldTable = await sql<{ n: number }>`select count(*) as n from prescription_items`.execute(t.ctx.db);
    expect(Number(oldTable.rows[0]?.n)).toBeGreaterThan(0);

    await migrateToLatest(t.ctx.db, dialect === 'postgres' ? await currentSchema() : undefined);

    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(t.ctx.db);
    expect(applied.rows.map((r) => r.name)).toContain('004_medication_items');
    expect(await getMedicationRequest(t, setup.clinic, id)).toEqual(before);
    // New medication requests are stored in the renamed table.
    const next = await createMedicationRequest(t, setup);
    expect((await getMedicationRequest(t, setup.clinic, next)).medication_requests).toHaveLength(
      before.medication_requests.length,
    );
  });

  async function currentSchema(): Promise<string> {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.ctx.db);
    return rows[0]?.schema ?? 'public';
  }
});
