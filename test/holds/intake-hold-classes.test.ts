import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceOrder,
  createOrderSetup,
  createPatient,
  expectOk,
  getOrder,
  itemBody,
  orderBody,
  outboxEventsOf,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { SANDBOX_FORMULARY } from '../../src/sandbox-seed.js';

/**
 * Every ingredient checked and duplicate therapy by class (issue 39, items 5 and 6;
 * docs/compounding.md#allergies-and-duplicate-therapy), over HTTP as a partner calls it: allergies
 * compared with inactive ingredients and through allergy classes, two orders of one therapeutic class,
 * an order that replaces another, and two orders of one class at the same moment.
 */
const SULFA = {
  name: 'Sulfamethoxazole-trimethoprim suspension',
  ingredients: [
    { name: 'Sulfamethoxazole', strength: '40', unit: 'mg/mL', active: true },
    { name: 'Trimethoprim', strength: '8', unit: 'mg/mL', active: true },
    { name: 'oral suspending vehicle', strength: 'q.s.', unit: 'mL', active: false },
  ],
  preparation: 'non_sterile',
  bud_category: 'aqueous_preserved',
  storage: 'refrigerated',
};
const entry = (name: string) => SANDBOX_FORMULARY.find((m) => m.name === name);
const SEMAGLUTIDE = itemBody({ medication: 'Semaglutide', dose: '0.25mg', quantity: 2, unit_of_measure: 'mL' });
const TIRZEPATIDE = itemBody({ medication: 'Tirzepatide', dose: '2.5mg', quantity: 2, unit_of_measure: 'mL' });

describe.each(DIALECTS)('every ingredient and the class at intake on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t, { formulary: [] });
    for (const body of [entry('Semaglutide'), entry('Tirzepatide'), SULFA]) {
      expectOk(await t.operator.post(`/api/admin/clinics/${setup.clinic.clinicId}/medications`, body), 'add an entry');
    }
  });
  afterAll(async () => t.close());

  const patient = async (fields: Record<string, unknown> = {}): Promise<OrderSetup> => ({
    ...setup,
    patientId: await createPatient(t, setup.clinic, { practitionerId: setup.practitionerId, overrides: fields }),
  });
  const post = (parties: OrderSetup, items: Record<string, unknown>[]) =>
    t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(parties, { medication_requests: items }));
  const order = async (parties: OrderSetup, items: Record<string, unknown>[]): Promise<string> =>
    expectOk(await post(parties, items), 'create order').medication_request_id as string;
  const historyOf = (id: string) =>
    t.ctx.db
      .selectFrom('medication_request_status_history')
      .select(['from_status', 'to_status', 'actor', 'message'])
      .where('medication_request_id', '=', id)
      .orderBy('at')
      .execute();

  it('when the patient is allergic to benzyl alcohol, then an order whose formula has it as an inactive ingredient is held', async () => {
    const parties = await patient({ allergies: [{ substance: 'Benzyl Alcohol', reaction: 'anaphylaxis', severity: 'severe' }] });
    const id = await order(parties, [SEMAGLUTIDE]);
    const read = await getOrder(t, setup.clinic, id);
    expect(read.status).toBe('on_hold');
    expect(read.hold).toMatchObject({ reason_code: 'allergy_conflict', waiting_on: 'pharmacy' });
    expect(read.hold.message).toContain(
      'benzyl alcohol (inactive, in Semaglutide) matches the patient\u2019s recorded allergy to Benzyl Alcohol (severe)',
    );
    const events = await outboxEventsOf(t, id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.on_hold']);
    // The reaction and the allergy are PHI: never in an event.
    expect(JSON.stringify(events)).not.toMatch(/anaphylaxis|benzyl/i);
  });

  it('when the patient\u2019s allergy is "sulfa", then an order of a sulfonamide is held naming the class', async () => {
    const parties = await patient({ allergies: [{ substance: 'sulfa' }] });
    const id = await order(parties, [itemBody({ medication: SULFA.name, dose: '200mg', quantity: 100, unit_of_measure: 'mL' })]);
    const read = await getOrder(t, setup.clinic, id);
    expect(read.hold.reason_code).toBe('allergy_conflict');
    expect(read.hold.message).toContain('Sulfamethoxazole (in Sulfamethoxazole-trimethoprim suspension) matches');
    expect(read.hold.message).toContain('allergy to sulfa (class: Sulfonamide antibiotics)');
    expect(read.hold.message).not.toContain('Trimethoprim (');
  });

  it('when semaglutide then tirzepatide are ordered for one patient, then the second is held for duplicate therapy by class', async () => {
    const parties = await patient();
    const first = await order(parties, [SEMAGLUTIDE]);
    expect((await getOrder(t, setup.clinic, first)).status).toBe('pending');
    const second = await order(parties, [TIRZEPATIDE]);
    const read = await getOrder(t, setup.clinic, second);
    expect(read.status).toBe('on_hold');
    expect(read.hold).toMatchObject({ reason_code: 'duplicate_therapy', waiting_on: 'pharmacy' });
    expect(read.hold.message).toContain(
      `Tirzepatide is of the therapeutic class glp1_receptor_agonist, as the patient\u2019s order ${first} (Semaglutide, pending) is.`,
    );
    // Another patient's semaglutide is no duplicate of it.
    const other = await patient();
    expect((await getOrder(t, setup.clinic, await order(other, [TIRZEPATIDE]))).status).toBe('pending');
  });

  it('when the second names the first in replaces_medication_request_id, then it is not held and the first is cancelled naming its replacement', async () => {
    const parties = await patient();
    const first = await order(parties, [SEMAGLUTIDE]);
    const second = await order(parties, [{ ...TIRZEPATIDE, replaces_medication_request_id: first }]);

    const read = await getOrder(t, setup.clinic, second);
    expect(read.status).toBe('pending');
    expect(read.hold).toBeNull();
    const replaced = await getOrder(t, setup.clinic, first);
    expect(replaced.status).toBe('cancelled');
    expect(replaced.status_history.map((h: { to: string; actor: string }) => [h.to, h.actor])).toEqual([
      ['pending', 'partner'],
      ['cancelled', 'partner'],
    ]);
    expect((await historyOf(first)).at(-1)).toMatchObject({
      from_status: 'pending',
      to_status: 'cancelled',
      message: `Replaced by order ${second} (titration or switch).`,
    });
    const cancelled = (await outboxEventsOf(t, first)).find((e) => e.type === 'order.cancelled');
    expect(cancelled?.payload).toMatchObject({ medication_request_id: first, status: 'cancelled', previous_status: 'pending' });
    const audit = await t.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'resource_id'])
      .where('resource_id', 'in', [first, second])
      .execute();
    expect(audit).toEqual(
      expect.arrayContaining([
        { action: 'cancel', resource_id: first },
        { action: 'create', resource_id: second },
      ]),
    );
    const item = await t.ctx.db
      .selectFrom('medication_items as i')
      .innerJoin('prescriptions as p', 'p.id', 'i.prescription_id')
      .select('i.replaces_medication_request_id')
      .where('p.medication_request_id', '=', second)
      .executeTakeFirstOrThrow();
    expect(item.replaces_medication_request_id).toBe(first);
  });

  it('when the replaced order is on hold, then it is cancelled and none of its holds stays open', async () => {
    const parties = await patient();
    await order(parties, [SEMAGLUTIDE]);
    const held = await order(parties, [TIRZEPATIDE]);
    expect((await getOrder(t, setup.clinic, held)).status).toBe('on_hold');
    await order(parties, [{ ...TIRZEPATIDE, replaces_medication_request_id: held }]);

    expect((await getOrder(t, setup.clinic, held)).status).toBe('cancelled');
    const open = await t.ctx.db
      .selectFrom('order_holds')
      .select('id')
      .where('medication_request_id', '=', held)
      .where('resolved_at', 'is', null)
      .execute();
    expect(open).toEqual([]);
  });

  it('when the replaced order has shipped, then it stays shipped and the new one is not held (the titration while the last vial is in use)', async () => {
    const parties = await patient();
    const first = await order(parties, [SEMAGLUTIDE]);
    await advanceOrder(t, setup.clinic, first, 'shipped');
    const second = await order(parties, [{ ...SEMAGLUTIDE, dose: '0.5mg', replaces_medication_request_id: first }]);
    expect((await getOrder(t, setup.clinic, second)).status).toBe('pending');
    expect((await getOrder(t, setup.clinic, first)).status).toBe('shipped');
  });

  it('when the replaced id is another patient\u2019s order or unknown, then 400 naming the field and nothing is stored', async () => {
    const parties = await patient();
    const someoneElses = await order(await patient(), [SEMAGLUTIDE]);
    for (const id of [someoneElses, '01960000-0000-7000-8000-000000000000']) {
      const res = await post(parties, [itemBody(), { ...TIRZEPATIDE, replaces_medication_request_id: id }]);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.error.details)).toEqual(['medication_requests[1].replaces_medication_request_id']);
    }
    expect((await getOrder(t, setup.clinic, someoneElses)).status).toBe('pending');
    const stored = await t.ctx.db
      .selectFrom('medication_requests')
      .select('id')
      .where('patient_id', '=', parties.patientId)
      .execute();
    expect(stored).toEqual([]);
  });

  it('when the replaced order is cancelled or delivered, then 409 naming the field', async () => {
    const parties = await patient();
    const cancelled = await order(parties, [SEMAGLUTIDE]);
    await advanceOrder(t, setup.clinic, cancelled, 'cancelled');
    const delivered = await order(parties, [SEMAGLUTIDE]);
    await advanceOrder(t, setup.clinic, delivered, 'delivered');
    for (const [id, status] of [
      [cancelled, 'cancelled'],
      [delivered, 'delivered'],
    ] as const) {
      const res = await post(parties, [{ ...TIRZEPATIDE, replaces_medication_request_id: id }]);
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.details).toEqual({
        'medication_requests[0].replaces_medication_request_id': `is ${status}, a final state: leave it out`,
      });
    }
  });

  it('when two orders of one class for one patient are sent at the same moment, then exactly one passes and the other is held', async () => {
    for (let round = 0; round < 4; round++) {
      const parties = await patient();
      const answers = await Promise.all([post(parties, [SEMAGLUTIDE]), post(parties, [TIRZEPATIDE])]);
      const ids = answers.map((res) => expectOk(res, 'create order').medication_request_id as string);
      const reads = await Promise.all(ids.map((id) => getOrder(t, setup.clinic, id)));
      expect(reads.map((r) => r.status).sort()).toEqual(['on_hold', 'pending']);
      expect(reads.find((r) => r.status === 'on_hold')?.hold.reason_code).toBe('duplicate_therapy');
    }
  });
});
