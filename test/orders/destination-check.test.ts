import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATES_AND_DC } from '../../src/shipping/licensed-states.js';
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
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * One destination check (issue 38, item 2; src/orders/destination-check.ts): a new order, a refill
 * and a hold's corrected address are checked by the same function in the same order, so that the
 * same destination problem gets the same answer from each: the same code, message and state (a hold
 * answer names `address.state` besides). The fixtures' patients live in CA.
 */
const ENTRY = 'Naltrexone Cream';

describe.each(DIALECTS)('the three callers of the destination check on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let entryId: string;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: { REQUIRE_PRESCRIBER_STATE_LICENSE: 'true' } });
    setup = await createOrderSetup(t);
    entryId = (await createFormula(t, setup.clinic, ENTRY)).medication_id;
    await licensedIn('CA', 'NJ');
  });
  afterAll(async () => t.close());

  const partner = () => t.partner(setup.clinic.apiKey);
  const ordering = { medication_requests: [itemBody({ medication: ENTRY })] };
  async function licensedIn(...states: string[]): Promise<void> {
    expectOk(
      await partner().put(`/api/external/practitioner/${setup.practitionerId}/credentials`, {
        dea_number: null,
        licenses: states.map((state_code, i) => ({ state_code, number: `L-${i}`, expires_on: '2099-01-01' })),
      }),
      'put licences',
    );
  }
  const setStates = async (states: readonly string[]) =>
    expectOk(await t.operator.put('/api/admin/licensed-states', { states }), 'set licensed states');
  const restrict = async (states: string[]) =>
    expectOk(
      await t.operator.patch(`/api/admin/clinics/${setup.clinic.clinicId}/medications/${entryId}`, { restricted_states: states }),
      'restrict the entry',
    );

  /**
   * A shipped order and an order held for its address, made while CA is a good destination; then,
   * with `problem` made, the three answers for CA: a new order, a refill of the shipped one, and the
   * held one's answer with an address in CA. The problem is undone after.
   */
  async function answersFor(problem: { make: () => Promise<void>; undo: () => Promise<void> }) {
    const shipped = await createOrder(t, await ownPatient(t, setup), ordering);
    await advanceOrder(t, setup.clinic, shipped, 'shipped');
    const held = await createOrder(t, await ownPatient(t, setup), ordering);
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${held}/hold`, {
        reason_code: 'address_undeliverable',
        message: 'Returned.',
      }),
      'hold',
    );
    await problem.make();
    try {
      const intake = await partner().post('/api/external/medication-order', orderBody(await ownPatient(t, setup), ordering));
      const refill = await partner().post('/api/external/refill-request', { medication_request_id: shipped });
      const answer = await partner().post(`/api/external/medication-order/${held}/hold-response`, {
        message: 'The patient moved.',
        address: { addressLine1: '1 Main St', city: 'Sacramento', state: 'CA', postalCode: '95814' },
      });
      return { intake, refill, answer };
    } finally {
      await problem.undo();
    }
  }

  /** The three answers are one refusal: status, code, message and state alike; the hold answer names address.state. */
  function expectSameRefusal({ intake, refill, answer }: Record<'intake' | 'refill' | 'answer', Reply>, code: string) {
    for (const res of [intake, refill, answer]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code, details: { state: 'CA' } });
    }
    expect(refill.body.error.message).toBe(intake.body.error.message);
    expect(answer.body.error.message).toBe(intake.body.error.message);
    expect(answer.body.error.details['address.state']).toContain('CA');
  }

  it('when the pharmacy holds no permit in the state, then intake, a refill and a hold answer refuse it alike (STATE_NOT_LICENSED)', async () => {
    const answers = await answersFor({ make: () => setStates(['NJ', 'TX']), undo: () => setStates(STATES_AND_DC) });
    expectSameRefusal(answers, 'STATE_NOT_LICENSED');
  });

  it('when the formulary entry may not go to the state, then intake, a refill and a hold answer refuse it alike (STATE_NOT_LICENSED)', async () => {
    const answers = await answersFor({ make: () => restrict(['CA']), undo: () => restrict([]) });
    expectSameRefusal(answers, 'STATE_NOT_LICENSED');
    expect(answers.intake.body.error.message).toContain(ENTRY);
  });

  it('when the prescriber holds no licence in the state, then intake, a refill and a hold answer refuse it alike (PRESCRIBER_NOT_LICENSED)', async () => {
    const answers = await answersFor({ make: () => licensedIn('NJ'), undo: () => licensedIn('CA', 'NJ') });
    expectSameRefusal(answers, 'PRESCRIBER_NOT_LICENSED');
  });

  it('when the state is both unlicensed and outside the prescriber\u2019s licences, then all three answer the pharmacy\u2019s licence first', async () => {
    const answers = await answersFor({
      make: async () => {
        await setStates(['NJ', 'TX']);
        await licensedIn('NJ');
      },
      undo: async () => {
        await setStates(STATES_AND_DC);
        await licensedIn('CA', 'NJ');
      },
    });
    expectSameRefusal(answers, 'STATE_NOT_LICENSED');
  });
});
