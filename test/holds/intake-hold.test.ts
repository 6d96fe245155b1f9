import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  createPatient,
  expectOk,
  getOrder,
  itemBody,
  outboxEventsOf,
  requestRefill,
  type OrderSetup,
} from '../helpers/factories.js';
import { createSignedInStaff } from '../helpers/staff.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Allergies and duplicate therapy at intake (issue 30, item 6;
 * docs/compounding.md#allergies-and-duplicate-therapy): the order is accepted and held at once,
 * waiting on the pharmacy, over HTTP as a partner and the pharmacy call it.
 */
const LDN = {
  name: 'Low-dose naltrexone 4.5 mg',
  ingredients: [
    { name: 'Naltrexone Hydrochloride', strength: '4.5', unit: 'mg', active: true },
    { name: 'Microcrystalline cellulose', strength: '100', unit: 'mg', active: false },
  ],
  preparation: 'non_sterile',
  bud_category: 'solid',
  storage: 'room',
};
const LDN_ITEM = itemBody({ medication: LDN.name, dose: '4.5mg', direction: 'One capsule at bedtime', days_supply: 30 });

describe.each(DIALECTS)('the intake hold on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
    expectOk(await t.operator.post(`/api/admin/clinics/${setup.clinic.clinicId}/medications`, LDN), 'add LDN');
  });
  afterAll(async () => t.close());

  /** A new patient of the setup's clinic, with these patient fields. */
  const patient = async (fields: Record<string, unknown> = {}): Promise<OrderSetup> => ({
    ...setup,
    patientId: await createPatient(t, setup.clinic, { practitionerId: setup.practitionerId, overrides: fields }),
  });
  const order = (parties: OrderSetup, items = [LDN_ITEM]) => createOrder(t, parties, { medication_requests: items });

  it('when an ingredient is one of the patient\u2019s allergies, then the order is answered 200 and held for the pharmacy, created then held', async () => {
    const allergic = await patient({ allergies: [{ substance: 'naltrexone', reaction: 'hives', severity: 'severe' }] });
    const res = await t.partner(setup.clinic.apiKey).post('/api/external/medication-order', {
      patient_id: allergic.patientId,
      practitioner_id: allergic.practitionerId,
      clinic_id: allergic.clinic.clinicId,
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
      medication_requests: [LDN_ITEM],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['medication_request_id']);
    const id = res.body.data.medication_request_id as string;

    const read = await getOrder(t, setup.clinic, id);
    expect(read.status).toBe('on_hold');
    expect(read.hold).toMatchObject({ reason_code: 'allergy_conflict', waiting_on: 'pharmacy' });
    expect(read.hold.message).toContain('Naltrexone Hydrochloride');
    expect(read.hold.message).toContain('allergy to naltrexone (severe)');
    expect(read.status_history.map((h: { to: string }) => h.to)).toEqual(['pending', 'on_hold']);
    expect(read.hold_history).toEqual([
      expect.objectContaining({ kind: 'hold', reason_code: 'allergy_conflict', actor: 'operator' }),
    ]);

    const events = await outboxEventsOf(t, id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.on_hold']);
    expect(events[1]?.payload).toEqual({
      medication_request_id: id,
      status: 'on_hold',
      reason_code: 'allergy_conflict',
      waiting_on: 'pharmacy',
      sequence: 2,
    });
    expect(JSON.stringify(events)).not.toContain('naltrexone');

    // A clinical hold: the operator token cannot resume it; the pharmacist signed in overrides it with a reason.
    const refused = await t.operator.post(`/api/admin/medication-requests/${id}/resume`, { message: 'Prescriber confirmed.' });
    expect(refused.status).toBe(403);
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Ines Intake');
    const resumed = await pharmacist.post(`/api/admin/medication-requests/${id}/resume`, {
      message: 'Prescriber confirmed.',
      override_reason: 'Prescriber confirmed the reaction was mild; benefit outweighs the risk.',
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.data).toMatchObject({ status: 'pending', hold: null, holds: [] });
  });

  it('when the allergies are replaced, then the next order is compared with the new list', async () => {
    const parties = await patient({ allergies: [{ substance: 'Latex' }] });
    expect((await getOrder(t, setup.clinic, await order(parties))).status).toBe('pending');
    const put = await t.partner(setup.clinic.apiKey).put(`/api/external/patient/${parties.patientId}/allergies`, {
      allergies: [{ substance: 'NALTREXONE HCl' }],
    });
    expect(put.status).toBe(200);
    const second = await getOrder(t, setup.clinic, await order(parties));
    // Both: the allergy is the reason, and the first order is named as well.
    expect(second.hold.reason_code).toBe('allergy_conflict');
    expect(second.hold.message).toContain('Duplicate therapy');
  });

  it('when another order with the same active ingredient is still in use, then the new one is held for duplicate therapy', async () => {
    const parties = await patient();
    const first = await order(parties);
    expect((await getOrder(t, setup.clinic, first)).status).toBe('pending');
    const second = await order(parties);
    const read = await getOrder(t, setup.clinic, second);
    expect(read.status).toBe('on_hold');
    expect(read.hold.reason_code).toBe('duplicate_therapy');
    expect(read.hold.message).toContain(`order ${first}`);
    expect((await outboxEventsOf(t, second)).map((e) => e.type)).toEqual(['order.created', 'order.on_hold']);
  });

  it('when the other order is final, then it is no longer a duplicate', async () => {
    const parties = await patient();
    const first = await order(parties);
    await advanceOrder(t, setup.clinic, first, 'delivered');
    expect((await getOrder(t, setup.clinic, await order(parties))).status).toBe('pending');
  });

  it('when a refill of the same chain is requested, then it is never duplicate therapy', async () => {
    const parties = await patient();
    const first = await order(parties);
    await advanceOrder(t, setup.clinic, first, 'shipped');
    const refill = await requestRefill(t, setup.clinic, first);
    const read = await getOrder(t, setup.clinic, refill.medication_order_id);
    expect(read.status).toBe('pending');
    expect(read.hold).toBeNull();
  });

  it('when a refill is requested for a patient now allergic, then the refill is held', async () => {
    const parties = await patient();
    const first = await order(parties);
    await advanceOrder(t, setup.clinic, first, 'shipped');
    await t.partner(setup.clinic.apiKey).put(`/api/external/patient/${parties.patientId}/allergies`, {
      allergies: [{ substance: 'naltrexone' }],
    });
    const refill = await requestRefill(t, setup.clinic, first);
    expect((await getOrder(t, setup.clinic, refill.medication_order_id)).hold.reason_code).toBe('allergy_conflict');
  });

  it('when the entry has no formula, then there is nothing to compare and the order stays pending', async () => {
    const parties = await patient({ allergies: [{ substance: 'Semaglutide' }] });
    const first = await order(parties, [itemBody()]);
    const second = await order(parties, [itemBody()]);
    for (const id of [first, second]) {
      expect((await getOrder(t, setup.clinic, id)).status).toBe('pending');
      expect((await outboxEventsOf(t, id)).map((e) => e.type)).toEqual(['order.created']);
    }
  });
});
