import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceOrder,
  createFormula,
  createOrder,
  createOrderSetup,
  expectOk,
  itemBody,
  orderBody,
  type OrderSetup,
  ownPatient,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * What an order is checked against from the formula and the prescriber (issue 30, items 7 and 8;
 * docs/compounding.md#where-a-preparation-may-go-and-who-may-prescribe-it), over HTTP. The fixtures'
 * patient lives in CA, the practitioner in TX.
 */
const CONTROLLED = 'Testosterone Cream';
const RESTRICTED_IN_CA = 'Naltrexone Cream';
const RESTRICTED_ELSEWHERE = 'Minoxidil Solution';
const DEA = 'BL1234563';

/** A clinic ready to order, with entries: one controlled (schedule III), one the pharmacy may not ship to CA, one not to NY. */
async function setUp(t: TestApp): Promise<OrderSetup & { restrictedId: string }> {
  const setup = await createOrderSetup(t);
  await createFormula(t, setup.clinic, CONTROLLED, { controlled_schedule: 'III' });
  const restrictedId = (await createFormula(t, setup.clinic, RESTRICTED_IN_CA, { restricted_states: ['ca'] })).medication_id;
  await createFormula(t, setup.clinic, RESTRICTED_ELSEWHERE, { restricted_states: ['NY'] });
  return { ...setup, restrictedId };
}

/**
 * Puts order `id` on an address_undeliverable hold as the pharmacy; returns the partner's answer
 * with a corrected address in `city`, in the state it is called with.
 */
async function heldForAddress(t: TestApp, setup: OrderSetup, id: string, place: { city: string; postalCode: string }) {
  expectOk(
    await t.operator.post(`/api/admin/medication-requests/${id}/hold`, {
      reason_code: 'address_undeliverable',
      message: 'Returned.',
    }),
    'hold',
  );
  return (state: string) =>
    t.partner(setup.clinic.apiKey).post(`/api/external/medication-order/${id}/hold-response`, {
      message: 'The patient moved.',
      address: { addressLine1: '1 Main St', ...place, state },
    });
}

const ordering = (...medications: string[]) => ({
  medication_requests: medications.map((medication) => itemBody({ medication })),
});

describe.each(DIALECTS)('intake checks of the formula and the prescriber on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup & { restrictedId: string };

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await setUp(t);
  });
  afterAll(async () => t.close());

  const order = (overrides: Record<string, unknown>) =>
    t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(setup, overrides));
  const putCredentials = async (body: Record<string, unknown>) =>
    expectOk(
      await t.partner(setup.clinic.apiKey).put(`/api/external/practitioner/${setup.practitionerId}/credentials`, body),
      'put credentials',
    );
  const orderCount = async () => (await t.ctx.db.selectFrom('medication_requests').select('id').execute()).length;
  const refill = (id: string) =>
    t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: id });

  describe('a controlled-schedule entry', () => {
    it('when the prescriber has no DEA number, then 400 VALIDATION_ERROR naming dea_number and the item, and nothing is stored', async () => {
      await putCredentials({ dea_number: null, licenses: [] });
      const before = await orderCount();
      const res = await order(ordering('Semaglutide', CONTROLLED));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.dea_number).toContain('no DEA number');
      expect(res.body.error.details['medication_requests[1].medication']).toContain('schedule III');
      expect(res.body.error.details).not.toHaveProperty('medication_requests[0].medication');
      expect(res.body.error.message).toContain(CONTROLLED);
      expect(await orderCount()).toBe(before);
    });

    it('when the order has other broken rules too, then the one 400 names them all', async () => {
      await putCredentials({ dea_number: null, licenses: [] });
      const res = await order({ ...ordering(CONTROLLED, 'Unknownium'), service_id: 'no_such_service' });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(
        expect.arrayContaining([
          'dea_number',
          'medication_requests[0].medication',
          'medication_requests[1].medication',
          'service_id',
        ]),
      );
    });

    it('when the prescriber has a DEA number, then the order is taken', async () => {
      await putCredentials({ dea_number: DEA, licenses: [] });
      expect((await order(ordering(CONTROLLED))).status).toBe(200);
    });

    it('when no item is controlled, then a prescriber without a DEA number may order', async () => {
      await putCredentials({ dea_number: null, licenses: [] });
      expect((await order(ordering('Semaglutide', RESTRICTED_ELSEWHERE))).status).toBe(200);
    });

    it('when a refill of a controlled order is asked after the DEA number was removed, then 400 naming dea_number and no new order', async () => {
      await putCredentials({ dea_number: DEA, licenses: [] });
      const id = await createOrder(t, await ownPatient(t, setup), ordering(CONTROLLED));
      await advanceOrder(t, setup.clinic, id, 'shipped');
      await putCredentials({ dea_number: null, licenses: [] });
      const res = await refill(id);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toHaveProperty('dea_number');
      expect(await t.ctx.db.selectFrom('medication_requests').select('id').where('refill_of', '=', id).execute()).toHaveLength(0);
      await putCredentials({ dea_number: DEA, licenses: [] });
      expect((await refill(id)).status).toBe(200);
    });
  });

  describe('an entry\u2019s restricted states', () => {
    it('when an item may not be shipped to the patient\u2019s state, then 400 STATE_NOT_LICENSED with details.state and the item, and nothing is stored', async () => {
      const before = await orderCount();
      const res = await order(ordering('Semaglutide', RESTRICTED_IN_CA));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'STATE_NOT_LICENSED',
        details: { state: 'CA', 'medication_requests[1].medication': expect.stringContaining('restricted_states') },
      });
      expect(res.body.error.details).not.toHaveProperty('medication_requests[0].medication');
      expect(res.body.error.message).toContain(RESTRICTED_IN_CA);
      expect(await orderCount()).toBe(before);
    });

    it('when the entry restricts other states only, then the order is taken', async () => {
      expect((await order(ordering(RESTRICTED_ELSEWHERE))).status).toBe(200);
    });

    it('when the carrier services read is asked for that patient, then it says licensed: it names no medication', async () => {
      const res = await t.partner(setup.clinic.apiKey).get(`/api/external/carriers/fedex/services?patientId=${setup.patientId}`);
      expect(res.body.licensed).toBe(true);
    });

    it('when a refill is asked after the entry came to restrict the patient\u2019s state, then 400 STATE_NOT_LICENSED and no new order', async () => {
      const entryUrl = `/api/admin/clinics/${setup.clinic.clinicId}/medications/${setup.restrictedId}`;
      expectOk(await t.operator.patch(entryUrl, { restricted_states: [] }), 'lift the restriction');
      const id = await createOrder(t, await ownPatient(t, setup), ordering(RESTRICTED_IN_CA));
      await advanceOrder(t, setup.clinic, id, 'shipped');
      expectOk(await t.operator.patch(entryUrl, { restricted_states: ['CA'] }), 'restrict again');
      const res = await refill(id);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'STATE_NOT_LICENSED', details: { state: 'CA' } });
      expect(await t.ctx.db.selectFrom('medication_requests').select('id').where('refill_of', '=', id).execute()).toHaveLength(0);
    });
  });

  it('when a hold is answered with an address in a state the entry restricts, then 400 STATE_NOT_LICENSED names address.state and the hold still waits on the partner', async () => {
    const id = await createOrder(t, await ownPatient(t, setup), ordering(RESTRICTED_ELSEWHERE));
    const answer = await heldForAddress(t, setup, id, { city: 'Albany', postalCode: '12207' });
    const refused = await answer('ny');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'STATE_NOT_LICENSED',
      details: { state: 'NY', 'address.state': expect.stringContaining('NY') },
    });
    const held = await t.partner(setup.clinic.apiKey).get(`/api/external/medication-order/${id}`);
    expect(held.body.data).toMatchObject({ status: 'on_hold', hold: { waiting_on: 'partner' } });
    expect(held.body.data.shipping_address).toBeNull();
    const taken = await answer('NJ');
    expect(taken.status).toBe(200);
    expect(taken.body.data).toMatchObject({ status: 'pending', shipping_address: { state: 'NJ' } });
  });

  it('when REQUIRE_PRESCRIBER_STATE_LICENSE is off, then a prescriber with no licence at all may order', async () => {
    await putCredentials({ dea_number: null, licenses: [] });
    expect((await order(ordering('Semaglutide'))).status).toBe(200);
  });
});

describe.each(DIALECTS)('REQUIRE_PRESCRIBER_STATE_LICENSE on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const clock = fakeClock(Date.parse('2027-03-10T12:00:00.000Z'));

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock, env: { REQUIRE_PRESCRIBER_STATE_LICENSE: 'true' } });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  const order = () => t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(setup));
  const licensed = async (...licenses: { state_code: string; expires_on: string }[]) =>
    expectOk(
      await t.partner(setup.clinic.apiKey).put(`/api/external/practitioner/${setup.practitionerId}/credentials`, {
        dea_number: null,
        licenses: licenses.map((licence, i) => ({ ...licence, number: `L-${i}` })),
      }),
      'put licences',
    );

  it('when the prescriber holds no licence in the patient\u2019s state, then 400 PRESCRIBER_NOT_LICENSED with details.state, and nothing is stored', async () => {
    await licensed({ state_code: 'TX', expires_on: '2030-01-01' });
    const before = (await t.ctx.db.selectFrom('medication_requests').select('id').execute()).length;
    const res = await order();
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'PRESCRIBER_NOT_LICENSED',
      details: { state: 'CA', practitioner_id: expect.stringContaining('CA') },
    });
    expect((await t.ctx.db.selectFrom('medication_requests').select('id').execute()).length).toBe(before);
  });

  it('when the prescriber holds an unexpired licence in the patient\u2019s state, then the order is taken', async () => {
    await licensed({ state_code: 'TX', expires_on: '2030-01-01' }, { state_code: 'ca', expires_on: '2027-12-31' });
    expect((await order()).status).toBe(200);
  });

  it('when the licence expires today, then it still counts; the day after, the order is refused', async () => {
    await licensed({ state_code: 'CA', expires_on: '2027-03-10' });
    expect((await order()).status).toBe(200);
    clock.advance(24 * 3_600_000);
    const res = await order();
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PRESCRIBER_NOT_LICENSED', details: { state: 'CA' } });
  });

  it('when a hold is answered with an address in a state the prescriber holds no licence in, then 400 PRESCRIBER_NOT_LICENSED names address.state', async () => {
    await licensed({ state_code: 'CA', expires_on: '2099-01-01' }, { state_code: 'OR', expires_on: '2099-01-01' });
    const id = await createOrder(t, await ownPatient(t, setup));
    const answer = await heldForAddress(t, setup, id, { city: 'Portland', postalCode: '97201' });
    const refused = await answer('WA');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'PRESCRIBER_NOT_LICENSED',
      details: { state: 'WA', 'address.state': expect.any(String) },
    });
    expect((await answer('OR')).body.data).toMatchObject({ status: 'pending', shipping_address: { state: 'OR' } });
  });

  it('when the licence in the patient\u2019s state has expired, then 400 PRESCRIBER_NOT_LICENSED, and a refill too', async () => {
    await licensed({ state_code: 'CA', expires_on: '2099-01-01' });
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'shipped');
    await licensed({ state_code: 'CA', expires_on: '2026-12-31' });
    expect((await order()).body.error.code).toBe('PRESCRIBER_NOT_LICENSED');
    const res = await t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PRESCRIBER_NOT_LICENSED', details: { state: 'CA' } });
  });
});
