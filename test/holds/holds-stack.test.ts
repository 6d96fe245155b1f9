// Over 250 lines: the stack's rules (an intake hold surviving an address hold, who may override, the events, the sandbox, one hold by id, a race, a cancellation) share one setup per database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../audit/support.js';
import {
  createOrder,
  createOrderSetup,
  createPatient,
  expectOk,
  getOrder,
  itemBody,
  outboxEventsOf,
  type OrderSetup,
} from '../helpers/factories.js';
import { createSignedInStaff, type SignedInStaff } from '../helpers/staff.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Holds that stack and clinical holds that only a pharmacist overrides (issue 39, items 1 and 2;
 * docs/orders.md#holds), over HTTP on both databases: an intake `duplicate_therapy` hold survives the
 * pharmacy's `address_undeliverable` hold and the partner's corrected address, and the order resumes
 * only when the pharmacist signed in as themselves overrides it with a reason.
 */
const LDN = {
  name: 'Low-dose naltrexone 4.5 mg',
  ingredients: [{ name: 'Naltrexone Hydrochloride', strength: '4.5', unit: 'mg', active: true }],
  preparation: 'non_sterile',
  bud_category: 'solid',
  storage: 'room',
};
const LDN_ITEM = itemBody({ medication: LDN.name, dose: '4.5mg', direction: 'One capsule at bedtime', days_supply: 30 });
const ADDRESS = { addressLine1: '20 Elm St', city: 'Sacramento', state: 'CA', postalCode: '95814' };
const OVERRIDE = 'Titration step confirmed with the prescriber; the first vial is stopped.';

describe.each(DIALECTS)('holds that stack on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let pharmacist: SignedInStaff;
  const partner = () => t.partner(setup.clinic.apiKey);
  const hold = (id: string, body: Record<string, unknown>) => t.operator.post(`/api/admin/medication-requests/${id}/hold`, body);
  const resumeUrl = (id: string) => `/api/admin/medication-requests/${id}/resume`;
  const resolveUrl = (id: string, holdId: string) => `/api/admin/medication-requests/${id}/holds/${holdId}/resolve`;
  const answer = (id: string, body: Record<string, unknown>) =>
    partner().post(`/api/external/medication-order/${id}/hold-response`, body);
  const count = async (id: string, type: string) => (await outboxEventsOf(t, id)).filter((e) => e.type === type).length;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
    expectOk(await t.operator.post(`/api/admin/clinics/${setup.clinic.clinicId}/medications`, LDN), 'add LDN');
    pharmacist = await createSignedInStaff(t, 'pharmacist', 'Rita Override');
  });
  afterAll(async () => t.close());

  /** An order held at intake for duplicate therapy: its patient has another LDN order in use. */
  async function duplicateOrder(): Promise<string> {
    const parties = {
      ...setup,
      patientId: await createPatient(t, setup.clinic, { practitionerId: setup.practitionerId }),
    };
    await createOrder(t, parties, { medication_requests: [LDN_ITEM] });
    const id = await createOrder(t, parties, { medication_requests: [LDN_ITEM] });
    expect((await getOrder(t, setup.clinic, id)).hold.reason_code).toBe('duplicate_therapy');
    return id;
  }

  it('when an intake duplicate_therapy hold meets an address hold and the partner’s corrected address, then it survives, and the order resumes only after the pharmacist’s override', async () => {
    const id = await duplicateOrder();
    const held = await hold(id, { reason_code: 'address_undeliverable', message: 'No such street number.' });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    // The partner reads first the hold that waits on it; every open hold is in `holds`.
    expect(held.body.data.hold).toMatchObject({ reason_code: 'address_undeliverable', waiting_on: 'partner' });
    expect(held.body.data.holds.map((h: { reason_code: string; clinical: boolean }) => [h.reason_code, h.clinical])).toEqual([
      ['duplicate_therapy', true],
      ['address_undeliverable', false],
    ]);

    const answered = await answer(id, { message: 'Corrected with the patient.', address: ADDRESS });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.message).toBe('Answer recorded; the pharmacy will review it');
    expect(answered.body.data).toMatchObject({ status: 'on_hold', hold: { reason_code: 'duplicate_therapy' } });
    expect(answered.body.data.holds.map((h: { reason_code: string }) => h.reason_code)).toEqual(['duplicate_therapy']);
    expect(answered.body.data.shipping_address).toMatchObject({ city: 'Sacramento' });

    const token = await t.operator.post(resumeUrl(id), { message: 'Looks fine.' });
    expect(token.status).toBe(403);
    expect(token.body.error.message).toBe(
      'Only a pharmacist signed in as themselves may resolve a clinical hold (duplicate_therapy): the operator token acts for no person',
    );
    const holdId = answered.body.data.holds[0].hold_id as string;
    expect((await t.operator.post(resolveUrl(id, holdId), { override_reason: OVERRIDE })).status).toBe(403);
    expect((await getOrder(t, setup.clinic, id)).status).toBe('on_hold');

    const resumed = await pharmacist.post(resolveUrl(id, holdId), { override_reason: OVERRIDE, message: 'Reviewed.' });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.data).toMatchObject({ status: 'pending', hold: null, holds: [] });
    expect(
      resumed.body.data.hold_history.map((h: { kind: string; resolution: string | null }) => [h.kind, h.resolution]),
    ).toEqual([
      ['hold', null],
      ['hold', null],
      ['answer', null],
      ['resolve', 'answer'],
      ['resume', 'override'],
    ]);
    // One order.on_hold for the intake hold, one for the hold that waits on the partner; one order.resumed.
    expect(await count(id, 'order.on_hold')).toBe(2);
    expect(await count(id, 'order.resumed')).toBe(1);

    const detail = expectOk(await t.operator.get(`/api/admin/medication-requests/${id}`), 'detail');
    expect(detail.hold_history.at(-1)).toMatchObject({
      kind: 'resume',
      resolution: 'override',
      override_reason: OVERRIDE,
      actor_id: pharmacist.staffId,
      actor_name: 'Rita Override',
    });
    expect(JSON.stringify(await outboxEventsOf(t, id))).not.toContain(OVERRIDE);
    const audit = (await auditRows(t.ctx)).filter((r) => r.resource_id === id && r.action === 'override');
    expect(audit.map((r) => r.actor_id)).toEqual([pharmacist.staffId]);
    const row = await t.ctx.db.selectFrom('order_holds').selectAll().where('id', '=', holdId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ resolution: 'override', override_reason: OVERRIDE, resolved_by_id: pharmacist.staffId });
  });

  it('when someone but a signed-in pharmacist resolves a clinical hold, then 403 names why; a pharmacist without an override reason gets 400 naming it', async () => {
    const id = await duplicateOrder();
    const admin = await createSignedInStaff(t, 'admin', 'Ada Admin');
    const technician = await createSignedInStaff(t, 'technician', 'Tom Tech');
    for (const [who, why] of [
      [admin, 'you are signed in as admin'],
      [technician, 'you are signed in as technician'],
    ] as const) {
      const res = await who.post(resumeUrl(id), { override_reason: OVERRIDE });
      // A technician may not call the route at all (the roles table); an admin may, and is refused by the rule.
      expect(res.status).toBe(403);
      if (who === admin) expect(res.body.error.message).toContain(why);
    }
    const noReason = await pharmacist.post(resumeUrl(id), { message: 'The prescriber confirmed.' });
    expect(noReason.status).toBe(400);
    expect(Object.keys(noReason.body.error.details)).toEqual(['override_reason']);
    expect((await getOrder(t, setup.clinic, id)).status).toBe('on_hold');
    expect(await count(id, 'order.resumed')).toBe(0);
  });

  it('when the sandbox resumes an order with a clinical hold, then 409 says only a pharmacist’s override resolves it and nothing changes', async () => {
    const id = await duplicateOrder();
    const res = await partner().post(`/api/external/sandbox/medication-order/${id}/resume`);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('A clinical hold (duplicate_therapy) is resolved only by a pharmacist');
    const read = await getOrder(t, setup.clinic, id);
    expect(read.status).toBe('on_hold');
    expect(read.holds).toHaveLength(1);
  });

  it('when a partner’s plain answer meets a clinical hold, then it is recorded and the hold stays', async () => {
    const id = await duplicateOrder();
    const res = await answer(id, { message: 'The prescriber means to switch.' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'on_hold', hold: { reason_code: 'duplicate_therapy' } });
    expect(res.body.data.holds[0].answered_at).not.toBeNull();
  });

  it('when a hold waiting on the pharmacy opens beside another, then no event; one waiting on the partner sends order.on_hold again', async () => {
    const id = await createOrder(t, setup);
    expectOk(await hold(id, { reason_code: 'out_of_stock', message: 'Back Thursday.' }), 'first');
    expectOk(await hold(id, { reason_code: 'prescriber_outreach', message: 'Calling.' }), 'pharmacy');
    expect(await count(id, 'order.on_hold')).toBe(1);
    const partnerHold = expectOk(await hold(id, { reason_code: 'patient_unreachable', message: 'No answer.' }), 'partner');
    expect(partnerHold.hold.reason_code).toBe('patient_unreachable');
    const events = (await outboxEventsOf(t, id)).filter((e) => e.type === 'order.on_hold');
    expect(events.map((e) => [e.payload.reason_code, e.payload.waiting_on])).toEqual([
      ['out_of_stock', 'pharmacy'],
      ['patient_unreachable', 'partner'],
    ]);
  });

  it('when one hold is resolved by id, then the order stays on hold for the others; an unknown hold is 404, a resolved one 409, an override reason for a non-clinical hold 400', async () => {
    const id = await createOrder(t, setup);
    expectOk(await hold(id, { reason_code: 'out_of_stock', message: 'Back Thursday.' }), 'first');
    const both = expectOk(await hold(id, { reason_code: 'prescriber_outreach', message: 'Calling.' }), 'second');
    const [stock, outreach] = both.holds as { hold_id: string }[];
    const notClinical = await t.operator.post(resolveUrl(id, stock!.hold_id), { override_reason: 'Not needed.' });
    expect(notClinical.status).toBe(400);
    expect(Object.keys(notClinical.body.error.details)).toEqual(['override_reason']);
    const one = await t.operator.post(resolveUrl(id, stock!.hold_id), { message: 'Stock arrived.' });
    expect(one.status).toBe(200);
    expect(one.body.message).toBe('Hold resolved; the medication request stays on hold for its other holds');
    expect(one.body.data).toMatchObject({ status: 'on_hold', hold: { reason_code: 'prescriber_outreach' } });
    expect((await t.operator.post(resolveUrl(id, stock!.hold_id), {})).status).toBe(409);
    expect((await t.operator.post(resolveUrl(id, '01900000-0000-7000-8000-000000000000'), {})).status).toBe(404);
    const last = await t.operator.post(resolveUrl(id, outreach!.hold_id), {});
    expect(last.body.data.status).toBe('pending');
    expect(await count(id, 'order.resumed')).toBe(1);
  });

  it('when two resolutions of the last hold are sent at once, then the order resumes once and the other is refused with 409', async () => {
    const id = await duplicateOrder();
    const holdId = (await getOrder(t, setup.clinic, id)).holds[0].hold_id as string;
    const results = await Promise.all([
      pharmacist.post(resolveUrl(id, holdId), { override_reason: OVERRIDE }),
      pharmacist.post(resolveUrl(id, holdId), { override_reason: OVERRIDE }),
      pharmacist.post(resumeUrl(id), { override_reason: OVERRIDE }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await count(id, 'order.resumed')).toBe(1);
    const resumes = (await getOrder(t, setup.clinic, id)).hold_history.filter((h: { kind: string }) => h.kind === 'resume');
    expect(resumes).toHaveLength(1);
  });

  it('when a held order is cancelled, then its open holds close with it', async () => {
    const id = await duplicateOrder();
    expectOk(await partner().post(`/api/external/medication-order/${id}/cancel`, {}), 'cancel');
    const open = await t.ctx.db
      .selectFrom('order_holds')
      .select(['resolution'])
      .where('medication_request_id', '=', id)
      .execute();
    expect(open).toEqual([{ resolution: 'cancel' }]);
    expect((await getOrder(t, setup.clinic, id)).holds).toEqual([]);
  });
});
