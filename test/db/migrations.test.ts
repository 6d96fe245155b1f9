import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/create-db.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createOrder, createOrderSetup, getOrder, type OrderSetup } from '../helpers/factories.js';
import { createSignedInStaff } from '../helpers/staff.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Migrations that refuse to be reverted in production (the audit trail is append-only; encrypted
 * secrets cannot go back to plaintext) are taken back here by this test alone. This database holds
 * no webhook endpoints, so dropping the key-id column leaves no secret misread.
 */
const TEST_ONLY_UNDO: Record<string, RawBuilder<unknown>> = {
  '006_audit_events': sql`drop table audit_events`,
  '007_webhook_secret_encryption': sql`alter table webhook_endpoints drop column secret_key_id`,
};

describe.each(DIALECTS)('migrations of a deployed database on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when a database from before 004_medication_items holds medication requests, then upgrading keeps every medication item', async () => {
    const id = await createOrder(t, setup);
    const before = await getOrder(t, setup.clinic, id);
    expect(before.medication_requests.length).toBeGreaterThan(0);

    // Put the database back as 003 left it, with its data: the migrations after 004 undone (newest
    // first), then the old table name, 004 not applied.
    for (const name of Object.keys(migrations)
      .filter((n) => n > '004_medication_items')
      .reverse()) {
      const undo = TEST_ONLY_UNDO[name];
      if (undo) await undo.execute(t.ctx.db);
      else await migrations[name]?.down?.(t.ctx.db);
      await sql`delete from kysely_migration where name = ${name}`.execute(t.ctx.db);
    }
    await sql`alter table medication_items rename to prescription_items`.execute(t.ctx.db);
    if (dialect === 'postgres') {
      for (const suffix of ['pkey', 'position_key', 'prescription_id_fkey']) {
        await sql`alter table prescription_items rename constraint ${sql.id(`medication_items_${suffix}`)} to ${sql.id(`prescription_items_${suffix}`)}`.execute(
          t.ctx.db,
        );
      }
    }
    await sql`delete from kysely_migration where name = '004_medication_items'`.execute(t.ctx.db);
    const oldTable = await sql<{ n: number }>`select count(*) as n from prescription_items`.execute(t.ctx.db);
    expect(Number(oldTable.rows[0]?.n)).toBeGreaterThan(0);

    await migrateToLatest(t.ctx.db, dialect === 'postgres' ? await currentSchema() : undefined);

    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(t.ctx.db);
    expect(applied.rows.map((r) => r.name)).toContain('004_medication_items');
    if (dialect === 'postgres') {
      const constraints = await sql<{
        name: string;
      }>`select conname as name from pg_constraint where conrelid = 'medication_items'::regclass order by conname`.execute(
        t.ctx.db,
      );
      expect(constraints.rows.map((r) => r.name)).toEqual([
        'medication_items_pkey',
        'medication_items_position_key',
        'medication_items_prescription_id_fkey',
      ]);
    }
    expect(await getOrder(t, setup.clinic, id)).toEqual(before);
    // New medication requests are stored in the renamed table.
    const next = await createOrder(t, setup);
    expect((await getOrder(t, setup.clinic, next)).medication_requests).toHaveLength(before.medication_requests.length);
  });

  it('when a database from before 022_medication_formulas holds formulary entries, then upgrading gives them no formula and orders for them are accepted', async () => {
    // Put the database back as 021 left it: 022 and every migration after it undone, newest first.
    for (const name of Object.keys(migrations)
      .filter((n) => n >= '022_medication_formulas')
      .reverse()) {
      await migrations[name]?.down?.(t.ctx.db);
      await sql`delete from kysely_migration where name = ${name}`.execute(t.ctx.db);
    }

    await migrateToLatest(t.ctx.db, dialect === 'postgres' ? await currentSchema() : undefined);

    const formulary = await t.partner(setup.clinic.apiKey).get('/api/external/medications');
    expect(formulary.status).toBe(200);
    expect(formulary.body.data.items.length).toBeGreaterThan(0);
    for (const entry of formulary.body.data.items) {
      expect(entry).toMatchObject({
        ingredients: null,
        preparation: null,
        bud_category: null,
        storage: null,
        controlled_schedule: null,
        beyond_use_days: null,
        restricted_states: null,
      });
    }
    const id = await createOrder(t, setup);
    expect((await getOrder(t, setup.clinic, id)).status).toBe('pending');
  });

  it('when a database from before 030_formulary_safety holds sterile and other entries, then upgrading gives sterile ones the most conservative USP <797> condition, units from their dosage form, and version 1 of each formula', async () => {
    for (const name of Object.keys(migrations)
      .filter((n) => n >= '030_formulary_safety')
      .reverse()) {
      await migrations[name]?.down?.(t.ctx.db);
      await sql`delete from kysely_migration where name = ${name}`.execute(t.ctx.db);
    }
    const clinicId = setup.clinic.clinicId;
    const entry = (name: string, columns: Record<string, unknown>) => ({
      id: crypto.randomUUID(),
      clinic_id: clinicId,
      name,
      name_key: name.toLowerCase(),
      strength: null,
      created_at: '2026-01-01T00:00:00.000Z',
      ingredients: JSON.stringify([{ name: 'x', strength: '1', unit: 'mg/mL', active: true }]),
      bud_category: 'aqueous_preserved',
      controlled_schedule: null,
      restricted_states: '[]',
      ...columns,
    });
    const rows = [
      entry('Old sterile room 45', {
        preparation: 'sterile',
        storage: 'room',
        beyond_use_days: 45,
        dosage_form: 'injectable solution',
      }),
      entry('Old sterile frozen 30', { preparation: 'sterile', storage: 'frozen', beyond_use_days: 30, dosage_form: null }),
      entry('Old capsule', {
        preparation: 'non_sterile',
        bud_category: 'solid',
        storage: 'room',
        beyond_use_days: null,
        dosage_form: 'Capsule',
      }),
      entry('Old cream', { preparation: 'non_sterile', storage: 'room', beyond_use_days: null, dosage_form: 'topical cream' }),
    ];
    await (t.ctx.db as any).insertInto('medications').values(rows).execute();

    await migrateToLatest(t.ctx.db, dialect === 'postgres' ? await currentSchema() : undefined);

    const list = await t.operator.get(`/api/admin/clinics/${clinicId}/medications`);
    const byName = new Map<string, any>(list.body.data.medications.map((m: any) => [m.name, m]));
    const conservative = {
      category: 2,
      preparation: 'aseptic',
      nonsterile_component: true,
      sterility_tested: false,
      defaulted: true,
    };
    expect(byName.get('Old sterile room 45')).toMatchObject({
      sterile_condition: conservative,
      // Longer than the conservative condition allows at room temperature (1 day): the standard's limit applies.
      beyond_use_days: null,
      dispense_unit: 'mL',
      formula_version: 1,
    });
    expect(byName.get('Old sterile frozen 30')).toMatchObject({
      sterile_condition: conservative,
      beyond_use_days: 30,
      dispense_unit: 'each',
      dispense_unit_defaulted: true,
    });
    expect(byName.get('Old capsule')).toMatchObject({ sterile_condition: null, dispense_unit: 'capsule', formula_version: 1 });
    expect(byName.get('Old cream')).toMatchObject({ dispense_unit: 'g' });
    const versions = await t.operator.get(`/api/admin/clinics/${clinicId}/medications/${rows[0]!.id}/formula-versions`);
    expect(versions.body.data.versions).toMatchObject([
      { version: 1, formula: { preparation: 'sterile', sterile_condition: conservative } },
    ]);
  });

  it('when a database from before 033_signoffs_by_the_person holds sign-offs and signed-in staff, then upgrading renames product_check to final_check, keeps the sessions and takes technicians', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Otto Oldcheck');
    const id = await createOrder(t, setup);
    for (const name of Object.keys(migrations)
      .filter((n) => n >= '033_signoffs_by_the_person')
      .reverse()) {
      await migrations[name]?.down?.(t.ctx.db);
      await sql`delete from kysely_migration where name = ${name}`.execute(t.ctx.db);
    }
    const signoff = (kind: string, at: string) => ({
      id: crypto.randomUUID(),
      medication_request_id: id,
      kind,
      pharmacist_id: pharmacist.staffId,
      pharmacist_name: pharmacist.name,
      at,
    });
    await (t.ctx.db as any)
      .insertInto('order_signoffs')
      .values([signoff('prescription_review', '2026-01-01T00:00:00.000Z'), signoff('product_check', '2026-01-02T00:00:00.000Z')])
      .execute();

    await migrateToLatest(t.ctx.db, dialect === 'postgres' ? await currentSchema() : undefined);

    const detail = await pharmacist.get(`/api/admin/medication-requests/${id}`);
    expect(detail.status, 'the session made before the upgrade still works').toBe(200);
    expect(detail.body.data.signoffs.map((s: any) => [s.kind, s.checked])).toEqual([
      ['prescription_review', null],
      ['final_check', null],
    ]);
    const technician = await createSignedInStaff(t, 'technician', 'Tina Newrole');
    expect((await technician.get('/api/admin/session')).body.data.role).toBe('technician');
    // The rebuilt table keeps its check: a role of none of the three is refused by the database.
    await expect(sql`update staff_members set role = 'owner' where id = ${technician.staffId}`.execute(t.ctx.db)).rejects.toThrow(
      /check/i,
    );
  });

  async function currentSchema(): Promise<string> {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.ctx.db);
    return rows[0]?.schema ?? 'public';
  }
});
