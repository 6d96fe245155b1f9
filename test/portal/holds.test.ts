import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, expectOk, outboxEventsOf, type OrderSetup } from '../helpers/factories.js';
import { portalSignIn } from '../helpers/portal.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

const NOBODY = '00000000-0000-4000-8000-000000000000';
const ADDRESS = { addressLine1: '12 Harbor Road', city: 'Portland', state: 'ME', postalCode: '04101' };

describe.each(DIALECTS)('the portal’s "Needs your answer" on %s', (dialect) => {
  const clock = fakeClock(Date.parse('2031-05-06T09:00:00.000Z'));
  let t: TestApp;
  let setup: OrderSetup;
  let otherSetup: OrderSetup;
  let developer: Record<string, string>;
  let viewer: Record<string, string>;
  let developerId = '';

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    setup = await createOrderSetup(t);
    otherSetup = await createOrderSetup(t, { clinicName: 'Other Clinic' });
    const signedIn = await portalSignIn(t, setup.clinic.clinicId, 'developer');
    developer = signedIn.headers;
    developerId = signedIn.user.partnerUserId;
    viewer = (await portalSignIn(t, setup.clinic.clinicId, 'viewer')).headers;
  });
  afterAll(async () => t.close());

  const newOrder = async (s: OrderSetup = setup): Promise<string> => {
    clock.advance(1_000);
    return createOrder(t, s);
  };
  /** The pharmacy puts the order on hold (the operator API). */
  const hold = async (orderId: string, reasonCode: string, extra: Record<string, unknown> = {}) => {
    clock.advance(1_000);
    return expectOk(
      await t.operator.post(`/api/admin/medication-requests/${orderId}/hold`, {
        reason_code: reasonCode,
        message: `Held for ${reasonCode}`,
        ...extra,
      }),
      `hold ${reasonCode}`,
    );
  };
  const list = (query = '', headers = viewer): Promise<Reply> => t.request('GET', `/api/portal/holds${query}`, { headers });
  const answer = (orderId: string, body: unknown, headers = developer): Promise<Reply> => {
    clock.advance(1_000);
    return t.request('POST', `/api/portal/holds/${orderId}/response`, { headers, body });
  };
  const orderRow = (orderId: string) =>
    t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();

  it('when orders of two clinics are on hold, then a viewer lists only its clinic’s, those waiting on the partner first, oldest hold first, with the reason, what resolves it and the history', async () => {
    const pharmacyFirst = await newOrder();
    const partnerFirst = await newOrder();
    const partnerSecond = await newOrder();
    const notHeld = await newOrder();
    const theirs = await newOrder(otherSetup);
    await hold(pharmacyFirst, 'out_of_stock');
    await hold(partnerFirst, 'prescription_clarification');
    await hold(partnerSecond, 'other', { waiting_on: 'partner' });
    await hold(theirs, 'patient_unreachable');

    const res = await list();
    expect(res.status).toBe(200);
    const ids = res.body.data.items.map((item: { medication_request_id: string }) => item.medication_request_id);
    expect(ids).toEqual([partnerFirst, partnerSecond, pharmacyFirst]);
    expect(ids).not.toContain(notHeld);
    expect(res.body.data).toMatchObject({ waiting_on_partner: 2, waiting_on_pharmacy: 1, next_cursor: null });
    const [first] = res.body.data.items;
    expect(first).toEqual({
      medication_request_id: partnerFirst,
      created_at: expect.any(String),
      held_from: 'pending',
      hold: {
        reason_code: 'prescription_clarification',
        reason: expect.any(String),
        message: 'Held for prescription_clarification',
        waiting_on: 'partner',
        since: expect.any(String),
      },
      answer: expect.stringMatching(/\S/),
      answered_at: null,
      hold_history: [expect.objectContaining({ kind: 'hold', reason_code: 'prescription_clarification', actor: 'operator' })],
    });

    // A page at a time, across the two parts, in the same order.
    const one = await list('?limit=1');
    const two = await list(`?limit=1&cursor=${one.body.data.next_cursor}`);
    const three = await list(`?limit=1&cursor=${two.body.data.next_cursor}`);
    const paged = [one, two, three].map((page) => page.body.data.items[0]?.medication_request_id);
    expect(paged).toEqual([partnerFirst, partnerSecond, pharmacyFirst]);
    expect(three.body.data.next_cursor).toBeNull();
    const bad = await list('?limit=101');
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details)).toEqual(['limit']);
    const crafted = await list('?cursor=bm90LWEtY3Vyc29y');
    expect(Object.keys(crafted.body.error.details)).toEqual(['cursor']);

    // Resumed by the pharmacy: the next tests start from an empty list.
    for (const id of [partnerFirst, partnerSecond, pharmacyFirst]) {
      expectOk(await t.operator.post(`/api/admin/medication-requests/${id}/resume`, {}), 'resume');
    }
  });

  it('when a developer answers a hold waiting on the partner, then it waits on the pharmacy, the answer is in its history, and the audit trail names the portal user', async () => {
    const orderId = await newOrder();
    await hold(orderId, 'prescription_clarification');
    const res = await answer(orderId, { message: 'The dose is 0.5 mg weekly.' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ medication_request_id: orderId, status: 'on_hold', hold: { waiting_on: 'pharmacy' } });

    const listed = (await list()).body.data.items.find(
      (i: { medication_request_id: string }) => i.medication_request_id === orderId,
    );
    expect(listed.hold.waiting_on).toBe('pharmacy');
    expect(listed.answered_at).toEqual(expect.any(String));
    expect(listed.hold_history.map((h: { kind: string }) => h.kind)).toEqual(['hold', 'answer']);
    expect(listed.hold_history[1]).toMatchObject({ message: 'The dose is 0.5 mg weekly.', actor: 'partner' });
    const audit = await t.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('resource_id', '=', orderId)
      .where('action', '=', 'hold_response')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_type: 'partner_user',
      actor_id: developerId,
      actor_name: 'Pat developer',
      clinic_id: setup.clinic.clinicId,
    });
    // An answer is no event (the partner knows what it said).
    expect((await outboxEventsOf(t, orderId)).map((e) => e.type)).toEqual(['order.created', 'order.on_hold']);
  });

  it('when a viewer answers a hold, then 403 and the hold still waits on the partner', async () => {
    const orderId = await newOrder();
    await hold(orderId, 'patient_unreachable');
    const res = await answer(orderId, { message: 'Call the mobile number.' }, viewer);
    expect(res.status).toBe(403);
    const row = await orderRow(orderId);
    expect(row).toMatchObject({ status: 'on_hold', hold_waiting_on: 'partner', hold_answered_at: null });
  });

  it('when a developer answers another clinic’s order or an unknown one, then 404 and that order is unchanged', async () => {
    const theirs = await newOrder(otherSetup);
    await hold(theirs, 'patient_unreachable');
    for (const id of [theirs, NOBODY]) {
      const res = await answer(id, { message: 'Not ours to answer.' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect(await orderRow(theirs)).toMatchObject({ status: 'on_hold', hold_waiting_on: 'partner' });
  });

  it('when a developer answers an order that is not on hold, then 409 says so and nothing changes', async () => {
    const orderId = await newOrder();
    const res = await answer(orderId, { message: 'Anything?' });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/not on hold/i);
    expect(await orderRow(orderId)).toMatchObject({ status: 'pending', hold_answered_at: null });
  });

  it('when a developer answers an address_undeliverable hold with an address, then the order resumes at once with that shipping address', async () => {
    const orderId = await newOrder();
    await hold(orderId, 'address_undeliverable');
    const res = await answer(orderId, { message: 'The patient moved.', address: ADDRESS });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ medication_request_id: orderId, status: 'pending', hold: null });
    const order = expectOk(await t.partner(setup.clinic.apiKey).get(`/api/external/medication-order/${orderId}`), 'get order');
    expect(order.shipping_address).toMatchObject(ADDRESS);
    expect(order.hold_history.map((h: { kind: string }) => h.kind)).toEqual(['hold', 'answer', 'resume']);
    const listed = (await list()).body.data.items.map((i: { medication_request_id: string }) => i.medication_request_id);
    expect(listed).not.toContain(orderId);
  });

  it('when a developer answers with a malformed address or an empty message, then 400 names the field and the hold still waits', async () => {
    const orderId = await newOrder();
    await hold(orderId, 'address_undeliverable');
    const empty = await answer(orderId, { message: '' });
    expect(empty.status).toBe(400);
    expect(Object.keys(empty.body.error.details)).toEqual(['message']);
    const malformed = await answer(orderId, { message: 'New address', address: { ...ADDRESS, postalCode: 'nope' } });
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body.error.details).join()).toMatch(/postalCode/);
    expect(await orderRow(orderId)).toMatchObject({ status: 'on_hold', hold_waiting_on: 'partner' });
  });

  it('when a developer answers with cancel, then the order is cancelled', async () => {
    const orderId = await newOrder();
    await hold(orderId, 'state_not_licensed');
    const res = await answer(orderId, { message: 'We will send it elsewhere.', cancel: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'cancelled', hold: null });
  });

  it('when a viewer reads the catalog, then every reason is there with what resolves it', async () => {
    const res = await t.request('GET', '/api/portal/hold-reasons', { headers: viewer });
    expect(res.status).toBe(200);
    const codes = res.body.data.map((r: { code: string }) => r.code);
    expect(codes).toEqual(expect.arrayContaining(['prescription_clarification', 'address_undeliverable', 'other']));
    expect(res.body.data.find((r: { code: string }) => r.code === 'other')).toMatchObject({ waiting_on: null });
  });
});
