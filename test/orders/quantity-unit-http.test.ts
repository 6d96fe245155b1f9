import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { createOrder, createOrderSetup, getOrder, itemBody, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/*
 * Quantities with their unit (issue 39, item 9; docs/compounding.md#quantities-and-their-unit): an
 * item's `unit_of_measure` is the partner's, else its formulary entry's dispense unit, else `each`;
 * never the dose's. The docs' Gabapentin example (docs/fhir.md) over HTTP, and migration 036's
 * correction of the units the dose gave before.
 */

const UCUM = 'http://unitsofmeasure.org';

describe.each(DIALECTS)('quantities with their unit on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
    for (const entry of [
      { name: 'Gabapentin Suspension', strength: '50 mg/mL', dosage_form: 'oral suspension', dispense_unit: 'mL' },
      { name: 'LDN Capsules', strength: '4.5 mg', dosage_form: 'capsule', dispense_unit: 'capsule' },
      { name: 'Unit-less Troche', strength: '10 mg' },
    ]) {
      const res = await t.operator.post(`/api/admin/clinics/${setup.clinic.clinicId}/medications`, entry);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });
  afterAll(async () => t.close());

  const gabapentin = (overrides: Record<string, unknown> = {}) =>
    itemBody({
      medication: 'Gabapentin Suspension',
      dose: '250mg',
      quantity: 150,
      refills: '0',
      direction: 'Take 5 mL (250 mg) by mouth three times daily',
      days_supply: 10,
      ...overrides,
    });

  it('when the docs’ Gabapentin example gives no unit, then its 150 is mL in the partner’s read and in FHIR’s dispenseRequest', async () => {
    const id = await createOrder(t, setup, { medication_requests: [gabapentin()] });
    const item = (await getOrder(t, setup.clinic, id)).medication_requests[0];
    expect(item).toMatchObject({ dose: '250mg', quantity: 150, unit_of_measure: 'mL' });

    const fhir = await t.request('GET', `/fhir/R4/MedicationRequest/${item.id as string}`, {
      headers: { 'x-api-key': setup.clinic.apiKey },
    });
    expect(fhir.status).toBe(200);
    expect((fhir.body as { dispenseRequest: unknown }).dispenseRequest).toMatchObject({
      quantity: { value: 150, unit: 'mL', system: UCUM, code: 'mL' },
    });
  });

  it('when a partner gives the unit, then it is kept; when the entry has no unit, then the item counts `each`, never the dose’s unit', async () => {
    const id = await createOrder(t, setup, {
      medication_requests: [
        gabapentin({ unit_of_measure: 'bottle' }),
        itemBody({ medication: 'LDN Capsules', dose: '4.5mg', quantity: 30, direction: 'One at bedtime' }),
        itemBody({ medication: 'Unit-less Troche', dose: '10 mg', quantity: 20, direction: 'Dissolve one daily' }),
      ],
    });
    const units = (await getOrder(t, setup.clinic, id)).medication_requests.map(
      (i: { unit_of_measure: string | null }) => i.unit_of_measure,
    );
    expect(units).toEqual(['bottle', 'capsule', 'each']);
    const entries = await t.partner(setup.clinic.apiKey).get('/api/external/medications');
    const troche = (entries.body.data.items as { name: string; dispense_unit: string; dispense_unit_defaulted: boolean }[]).find(
      (e) => e.name === 'Unit-less Troche',
    );
    expect(troche).toMatchObject({ dispense_unit: 'each', dispense_unit_defaulted: true });
  });

  it('when migration 036 runs over items whose unit the dose gave, then those of an entry that knows its unit take it, and a partner’s own unit stays', async () => {
    const id = await createOrder(t, setup, {
      medication_requests: [
        gabapentin(),
        gabapentin({ unit_of_measure: 'bottle' }),
        itemBody({ medication: 'LDN Capsules', dose: '4.5mg', quantity: 30, direction: 'One at bedtime' }),
        itemBody({ medication: 'Unit-less Troche', dose: '10 mg', quantity: 20, direction: 'Dissolve one daily' }),
        itemBody({ medication: 'LDN Capsules', dose: 'as directed', quantity: 30, direction: 'One at bedtime' }),
      ],
    });
    // The units the intake stored before: the dose's (`mg`), or none where the dose gave none.
    const before = ['mg', 'bottle', 'mg', 'mg', null];
    const items = await t.ctx.db
      .selectFrom('medication_items as i')
      .innerJoin('prescriptions as p', 'p.id', 'i.prescription_id')
      .where('p.medication_request_id', '=', id)
      .select(['i.id', 'i.position'])
      .orderBy('i.position')
      .execute();
    for (const [position, unit] of before.entries()) {
      await t.ctx.db
        .updateTable('medication_items')
        .set({ unit_of_measure: unit })
        .where('id', '=', items[position]?.id ?? '')
        .execute();
    }
    const migration = migrations['036_quantity_units'];
    await migration?.down?.(t.ctx.db);
    await migration?.up(t.ctx.db);

    const units = (await getOrder(t, setup.clinic, id)).medication_requests.map(
      (i: { unit_of_measure: string | null }) => i.unit_of_measure,
    );
    // The troche's entry has no unit: its `mg` is left for the pharmacy to correct.
    expect(units).toEqual(['mL', 'bottle', 'capsule', 'mg', 'capsule']);
    const lotIndexes =
      dialect === 'postgres'
        ? await sql<{
            name: string;
            def: string;
          }>`select indexname as name, indexdef as def from pg_indexes where schemaname = current_schema() and indexname like '%lot_idx'`.execute(
            t.ctx.db,
          )
        : await sql<{
            name: string;
            def: string;
          }>`select name, sql as def from sqlite_master where type = 'index' and name like '%lot_idx'`.execute(t.ctx.db);
    expect(lotIndexes.rows).toHaveLength(4);
    for (const index of lotIndexes.rows) expect(index.def.toLowerCase(), index.name).toContain('upper(lot_number)');
  });
});
