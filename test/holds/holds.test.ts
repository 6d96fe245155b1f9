// Over 250 lines: the holds' rules on both databases share one setup (placing, answering, resuming, bad input, the sandbox); split by use case when it next grows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { HOLD_REASONS } from '../../src/holds/hold-reasons.js';
import { STATES_AND_DC } from '../../src/shipping/licensed-states.js';
import { auditRows } from '../audit/support.js';
import { advanceOrder, createOrder, createOrderSetup, getOrder, outboxEventsOf, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { registerEndpoint } from '../webhooks/support.js';

const NEW_ADDRESS = {
  addressLine1: '12 Harbor Road',
  addressLine2: 'Unit 4',
  city: 'Portland',
  state: 'me',
  postalCode: '04101',
};

describe.each(DIALECTS)('order holds on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const partner = () => t.partner(setup.clinic.apiKey);
  const hold = (id: string, body: Record<string, unknown>) => t.operator.post(`/api/admin/medication-requests/${id}/hold`, body);
  const resume = (id: string, body?: Record<string, unknown>) =>
    t.operator.post(`/api/admin/medication-requests/${id}/resume`, body);
  const answer = (id: string, body: Record<string, unknown>) =>
    partner().post(`/api/external/medication-order/${id}/hold-response`, body);

  async function heldOrder(
    reason_code = 'prescription_clarification',
    from: 'pending' | 'processing' = 'pending',
  ): Promise<string> {
    const id = await createOrder(t, setup);
    if (from === 'processing') await advanceOrder(t, setup.clinic, id, 'processing');
    const res = await hold(id, { reason_code, message: 'Please confirm the dose with the prescriber.' });
    expect(res.status).toBe(200);
    return id;
  }

  /** Everything a refused request must leave as it was: the row, its history, its events. */
  async function snapshot(id: string) {
    const order = await t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const history = await t.ctx.db
      .selectFrom('medication_request_status_history')
      .selectAll()
      .where('medication_request_id', '=', id)
      .execute();
    return { order, history: history.length, events: (await outboxEventsOf(t, id)).length };
  }

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when the pharmacy holds, the partner answers and the pharmacy resumes, then the order ships and every event arrives signed, without the messages', async () => {
    const receiver = await WebhookReceiver.start([{ status: 200, body: 'ok' }]);
    const clinic = await createOrderSetup(t);
    try {
      const { secret } = await registerEndpoint(t, clinic.clinic, receiver.url());
      const api = t.partner(clinic.clinic.apiKey);
      const id = await createOrder(t, clinic);
      await advanceOrder(t, clinic.clinic, id, 'processing');

      const held = await hold(id, { reason_code: 'prescription_clarification', message: 'Is it 0.25 mg weekly or daily?' });
      expect(held.status).toBe(200);
      expect(held.body.message).toBe('Medication request is now on_hold');
      const read = await getOrder(t, clinic.clinic, id);
      expect(read.status).toBe('on_hold');
      expect(read.hold).toEqual({
        reason_code: 'prescription_clarification',
        reason: HOLD_REASONS[0].reason,
        message: 'Is it 0.25 mg weekly or daily?',
        waiting_on: 'partner',
        since: expect.any(String),
      });
      const listed = await api.get('/api/external/medication-orders?status=on_hold');
      expect(listed.body.data.items.map((o: { medication_request_id: string }) => o.medication_request_id)).toEqual([id]);

      const answered = await api.post(`/api/external/medication-order/${id}/hold-response`, { message: 'Weekly, 0.25 mg.' });
      expect(answered.status).toBe(200);
      expect(answered.body.message).toBe('Answer recorded; the pharmacy will review it');
      expect(answered.body.data.status).toBe('on_hold');
      expect(answered.body.data.hold.waiting_on).toBe('pharmacy');

      const resumed = await resume(id, { message: 'Confirmed with the clinic.' });
      expect(resumed.status).toBe(200);
      expect(resumed.body.data).toMatchObject({ status: 'processing', hold: null });
      expect(
        (
          await t.operator.post(`/api/admin/medication-requests/${id}/status`, {
            status: 'shipped',
            tracking_number: '123456789012',
          })
        ).status,
      ).toBe(200);

      const order = await getOrder(t, clinic.clinic, id);
      expect(
        order.status_history.map(
          (h: { from: string | null; to: string; actor: string }) => `${h.from ?? 'null'}>${h.to}:${h.actor}`,
        ),
      ).toEqual([
        'null>pending:partner',
        'pending>processing:sandbox',
        'processing>on_hold:operator',
        'on_hold>processing:operator',
        'processing>shipped:operator',
      ]);
      expect(
        order.hold_history.map((h: { kind: string; message: string; actor: string; waiting_on: string | null }) => [
          h.kind,
          h.actor,
          h.waiting_on,
          h.message,
        ]),
      ).toEqual([
        ['hold', 'operator', 'partner', 'Is it 0.25 mg weekly or daily?'],
        ['answer', 'partner', 'pharmacy', 'Weekly, 0.25 mg.'],
        ['resume', 'operator', null, 'Confirmed with the clinic.'],
      ]);

      const worker = new WebhookWorker(t.ctx);
      try {
        await worker.drain();
      } finally {
        await worker.stop();
      }
      const events = receiver.received.map((request) => WebhookReceiver.verify(secret, request));
      expect(events.map((e: { type: string }) => e.type)).toEqual([
        'order.created',
        'order.on_hold',
        'order.resumed',
        'order.fulfilled',
      ]);
      expect(events[1].data).toEqual({
        medication_request_id: id,
        status: 'on_hold',
        reason_code: 'prescription_clarification',
        waiting_on: 'partner',
        sequence: 2,
      });
      // The partner's answer sends no event; the resume is the order's third.
      expect(events[2].data).toEqual({ medication_request_id: id, status: 'processing', sequence: 3 });
      expect(events.map((e: { data: { sequence: number } }) => e.data.sequence)).toEqual([1, 2, 3, 4]);
      const bodies = receiver.received.map((r) => r.body).join('\n');
      for (const text of ['0.25 mg weekly', 'Weekly, 0.25', 'Confirmed with']) expect(bodies).not.toContain(text);
    } finally {
      await receiver.stop();
    }
  });

  it('when an address_undeliverable hold is answered with an address, then the order takes it and resumes at once', async () => {
    const id = await heldOrder('address_undeliverable', 'processing');
    const res = await answer(id, { message: 'New address attached.', address: NEW_ADDRESS });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Answer recorded; medication request resumed (now processing)');
    expect(res.body.data).toMatchObject({
      status: 'processing',
      hold: null,
      shipping_address: { ...NEW_ADDRESS, state: 'ME' },
    });
    expect(res.body.data.hold_history.map((h: { kind: string; actor: string }) => `${h.kind}:${h.actor}`)).toEqual([
      'hold:operator',
      'answer:partner',
      'resume:partner',
    ]);
    const detail = await t.operator.get(`/api/admin/medication-requests/${id}`);
    expect(detail.body.data.patient.shipping_address).toEqual({
      address_line_1: '12 Harbor Road',
      address_line_2: 'Unit 4',
      city: 'Portland',
      state: 'ME',
      postal_code: '04101',
    });
    expect(detail.body.data.hold_history[1]).toMatchObject({
      kind: 'answer',
      actor_id: setup.clinic.apiKeyId,
      actor_name: 'API key',
    });
    const events = await outboxEventsOf(t, id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.on_hold', 'order.resumed']);
    expect(events[2]?.payload).toEqual({ medication_request_id: id, status: 'processing', sequence: 3 });
  });

  it('when an answer\u2019s address is in a state the pharmacy is not licensed in, then 400 STATE_NOT_LICENSED names address.state and nothing changes', async () => {
    const id = await heldOrder('address_undeliverable', 'processing');
    const before = await snapshot(id);
    const setStates = async (states: readonly string[]) =>
      expect((await t.operator.put('/api/admin/licensed-states', { states })).status).toBe(200);
    await setStates(STATES_AND_DC.filter((state) => state !== 'ME'));
    try {
      const res = await answer(id, { message: 'New address attached.', address: NEW_ADDRESS });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'STATE_NOT_LICENSED',
        details: { state: 'ME', 'address.state': expect.stringContaining('ME') },
      });
      expect(await snapshot(id)).toEqual(before);
    } finally {
      await setStates(STATES_AND_DC);
    }
    expect((await answer(id, { message: 'New address attached.', address: NEW_ADDRESS })).body.data.status).toBe('processing');
  });

  it('when another hold is answered with an address, then the address is kept and the hold waits on the pharmacy', async () => {
    const id = await heldOrder('state_not_licensed');
    const res = await answer(id, { message: 'The patient moved.', address: NEW_ADDRESS });
    expect(res.body.data).toMatchObject({
      status: 'on_hold',
      hold: { waiting_on: 'pharmacy' },
      shipping_address: { city: 'Portland' },
    });
  });

  it('when the partner answers with cancel, then the order is cancelled from on_hold with its event', async () => {
    const id = await heldOrder('patient_unreachable');
    const res = await answer(id, { message: 'Patient declined.', cancel: true });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Answer recorded; medication request cancelled');
    expect(res.body.data).toMatchObject({ status: 'cancelled', hold: null });
    const cancelled = (await outboxEventsOf(t, id)).find((e) => e.type === 'order.cancelled');
    expect(cancelled?.payload).toMatchObject({ status: 'cancelled', previous_status: 'on_hold' });
  });

  it('when the partner cancels a held order with the cancel route, then it is cancelled', async () => {
    const id = await heldOrder('out_of_stock');
    const res = await partner().post(`/api/external/medication-order/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'cancelled', hold: null });
  });

  it('when an order is held again, then the holds stack: it keeps its first time, sends no event for a pharmacy hold and resumes where it was first held from', async () => {
    const id = await heldOrder('prescription_clarification', 'processing');
    const first = await getOrder(t, setup.clinic, id);
    await answer(id, { message: 'See attached.' });
    const again = await hold(id, { reason_code: 'prescriber_outreach', message: 'Calling the prescriber.' });
    expect(again.status).toBe(200);
    expect(again.body.data.hold).toMatchObject({ reason_code: 'prescription_clarification', since: first.hold.since });
    expect(again.body.data.holds.map((h: { reason_code: string }) => h.reason_code)).toEqual([
      'prescription_clarification',
      'prescriber_outreach',
    ]);
    const twice = await hold(id, { reason_code: 'prescriber_outreach', message: 'Again.' });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain('already on hold for prescriber_outreach');
    expect(Object.keys(twice.body.error.details)).toEqual(['reason_code']);
    expect((await resume(id)).body.data.status).toBe('processing');
    const events = (await outboxEventsOf(t, id)).map((e) => e.type);
    expect(events.filter((type) => type === 'order.on_hold')).toHaveLength(1);
    expect(events.filter((type) => type === 'order.resumed')).toHaveLength(1);
  });

  it('when the catalog is read, then every code says whose move it is and what resolves it', async () => {
    const res = await partner().get('/api/external/hold-reasons');
    expect(res.status).toBe(200);
    expect(
      Object.fromEntries(res.body.data.map((r: { code: string; waiting_on: string | null }) => [r.code, r.waiting_on])),
    ).toEqual({
      prescription_clarification: 'partner',
      prescriber_outreach: 'pharmacy',
      address_undeliverable: 'partner',
      patient_unreachable: 'partner',
      allergy_conflict: 'pharmacy',
      duplicate_therapy: 'pharmacy',
      out_of_stock: 'pharmacy',
      state_not_licensed: 'partner',
      delivery_exception: 'partner',
      other: null,
    });
    for (const reason of res.body.data) expect(reason.answer.length).toBeGreaterThan(10);
  });

  it('when the hold names other, then waiting_on is required; with another code it must be the catalog\u2019s', async () => {
    const id = await createOrder(t, setup);
    const missing = await hold(id, { reason_code: 'other', message: 'See note.' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual({ waiting_on: 'is required with reason_code other: partner or pharmacy' });
    const wrong = await hold(id, { reason_code: 'out_of_stock', message: 'Waiting.', waiting_on: 'partner' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.waiting_on).toContain('only reason_code other takes waiting_on');
    const other = await hold(id, { reason_code: 'other', message: 'See note.', waiting_on: 'partner' });
    expect(other.body.data.hold).toMatchObject({ reason_code: 'other', waiting_on: 'partner' });
  });

  describe('bad input changes nothing', () => {
    it.each([
      ['an unknown reason_code', { reason_code: 'lost_in_mail', message: 'x' }, 'reason_code'],
      ['an empty message', { reason_code: 'other', waiting_on: 'partner', message: '' }, 'message'],
      ['a blank message', { reason_code: 'other', waiting_on: 'partner', message: '   ' }, 'message'],
      ['a message too long', { reason_code: 'other', waiting_on: 'partner', message: 'a'.repeat(2001) }, 'message'],
      ['a NUL', { reason_code: 'other', waiting_on: 'partner', message: 'call\u0000us' }, 'message'],
      ['a bidi override', { reason_code: 'other', waiting_on: 'partner', message: 'call \u202Eus' }, 'message'],
      ['a zero-width space', { reason_code: 'other', waiting_on: 'partner', message: '\u200Bcall us' }, 'message'],
    ])('when a hold has %s, then 400 names the field', async (_what, body, field) => {
      const id = await createOrder(t, setup);
      const before = await snapshot(id);
      const res = await hold(id, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual([field]);
      expect(await snapshot(id)).toEqual(before);
    });

    it('when the reason_code is unknown, then the answer lists the valid codes', async () => {
      const id = await createOrder(t, setup);
      const res = await hold(id, { reason_code: 'lost_in_mail', message: 'x' });
      for (const { code } of HOLD_REASONS) expect(res.body.error.details.reason_code).toContain(code);
    });

    it.each(['shipped', 'delivered', 'cancelled'] as const)(
      'when a %s order is held, then 409 and nothing changes',
      async (status) => {
        const id = await createOrder(t, setup);
        await advanceOrder(t, setup.clinic, id, status);
        const before = await snapshot(id);
        const res = await hold(id, { reason_code: 'out_of_stock', message: 'Waiting for stock.' });
        expect(res.status).toBe(409);
        expect(res.body.error.message).toContain('Cannot put the medication request on hold');
        expect(await snapshot(id)).toEqual(before);
      },
    );

    it.each([
      ['an empty message', { message: '' }, 'message'],
      ['a NUL in the message', { message: 'ok\u0000' }, 'message'],
      ['a state that is not one', { message: 'New address.', address: { ...NEW_ADDRESS, state: 'XX' } }, 'address.state'],
      [
        'a ZIP code that is not one',
        { message: 'New address.', address: { ...NEW_ADDRESS, postalCode: '4101' } },
        'address.postalCode',
      ],
      ['an address without its city', { message: 'New address.', address: { ...NEW_ADDRESS, city: undefined } }, 'address.city'],
      ['cancel with an address', { message: 'Both.', address: NEW_ADDRESS, cancel: true }, 'cancel'],
      ['cancel that is not a boolean', { message: 'Cancel.', cancel: 'yes' }, 'cancel'],
    ])('when an answer has %s, then 400 names the field and nothing changes', async (_what, body, field) => {
      const id = await heldOrder('address_undeliverable');
      const before = await snapshot(id);
      const res = await answer(id, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual([field]);
      expect(await snapshot(id)).toEqual(before);
    });

    it('when an order not on hold is answered or resumed, then 409 says it is not on hold', async () => {
      const id = await createOrder(t, setup);
      const before = await snapshot(id);
      const answered = await answer(id, { message: 'Hello?' });
      expect(answered.status).toBe(409);
      expect(answered.body.error.message).toBe(
        'The medication request is not on hold (it is pending): there is no hold to answer',
      );
      const resumed = await resume(id);
      expect(resumed.status).toBe(409);
      expect(resumed.body.error.message).toContain('not on hold');
      expect(await snapshot(id)).toEqual(before);
    });

    it('when another clinic answers an order, then 404 as for an unknown one', async () => {
      const id = await heldOrder();
      const other = await t.createClinic();
      const before = await snapshot(id);
      const res = await t.partner(other.apiKey).post(`/api/external/medication-order/${id}/hold-response`, { message: 'Mine?' });
      expect(res.status).toBe(404);
      expect(await snapshot(id)).toEqual(before);
    });

    it('when a status change asks for on_hold or leaves it, then 409 points at the hold and resume routes', async () => {
      const id = await createOrder(t, setup);
      const toHold = await t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'on_hold' });
      expect(toHold.status).toBe(409);
      expect(toHold.body.error.message).toContain('/hold');
      await hold(id, { reason_code: 'out_of_stock', message: 'Waiting for stock.' });
      const out = await t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'processing' });
      expect(out.status).toBe(409);
      expect(out.body.error.message).toContain('/resume');
      const advanced = await partner().post(`/api/external/sandbox/medication-order/${id}/advance`, {});
      expect(advanced.status).toBe(409);
    });
  });

  it.each([
    ['an address answer', { message: 'Corrected.', address: NEW_ADDRESS }, 'processing'],
    ['a cancelling answer', { message: 'Cancel it.', cancel: true }, 'cancelled'],
  ])('when %s races a resume, then exactly one of them wins', async (_what, body, byAnswer) => {
    for (let round = 0; round < 3; round += 1) {
      const id = await heldOrder('address_undeliverable', 'processing');
      const [answered, resumed] = await Promise.all([answer(id, body), resume(id)]);
      expect([answered.status, resumed.status].sort()).toEqual([200, 409]);
      const order = await getOrder(t, setup.clinic, id);
      expect(order.status).toBe(answered.status === 200 ? byAnswer : 'processing');
      const moves = order.status_history.filter((h: { from: string }) => h.from === 'on_hold');
      expect(moves).toHaveLength(1);
    }
  });

  it('when an answer carries an Idempotency-Key twice, then it is recorded once and answered the same', async () => {
    const id = await heldOrder();
    const send = () =>
      t.request('POST', `/api/external/medication-order/${id}/hold-response`, {
        headers: { 'x-api-key': setup.clinic.apiKey, 'content-type': 'application/json', 'idempotency-key': `answer-${id}` },
        body: { message: 'Weekly.' },
      });
    const first = await send();
    const second = await send();
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect((await getOrder(t, setup.clinic, id)).hold_history.filter((h: { kind: string }) => h.kind === 'answer')).toHaveLength(
      1,
    );
  });

  it('when a refill is asked of a held order, then 400 names the hold', async () => {
    const id = await heldOrder('out_of_stock');
    const res = await partner().post('/api/external/refill-request', { medication_request_id: id });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('on hold');
    expect(res.body.error.details).toEqual({ medication_request_id: 'is on_hold (out_of_stock)' });
  });

  it('when the pharmacy holds, the partner answers and the pharmacy resumes, then the audit trail names each', async () => {
    const id = await heldOrder();
    await answer(id, { message: 'Done.' });
    await resume(id);
    const rows = (await auditRows(t.ctx)).filter(
      (row) => row.resource_id === id && ['hold', 'hold_response', 'resume'].includes(row.action),
    );
    expect(rows.map((row) => `${row.action}:${row.actor_type}`)).toEqual([
      'hold:operator',
      'hold_response:partner',
      'resume:operator',
    ]);
  });

  describe('the sandbox', () => {
    it('when a partner holds and resumes its own order, then both events are written with actor sandbox', async () => {
      const id = await createOrder(t, setup);
      const held = await partner().post(`/api/external/sandbox/medication-order/${id}/hold`, {
        reason_code: 'delivery_exception',
      });
      expect(held.status).toBe(200);
      expect(held.body.data.hold).toMatchObject({ reason_code: 'delivery_exception', waiting_on: 'partner' });
      expect(held.body.data.hold.message).toBe(HOLD_REASONS.find((r) => r.code === 'delivery_exception')?.reason);
      const other = await partner().post(`/api/external/sandbox/medication-order/${id}/hold`, { reason_code: 'other' });
      expect(other.body.data.hold.waiting_on).toBe('partner');
      const resumed = await partner().post(`/api/external/sandbox/medication-order/${id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body.data.status).toBe('pending');
      expect(resumed.body.data.hold_history.map((h: { kind: string; actor: string }) => `${h.kind}:${h.actor}`)).toEqual([
        'hold:sandbox',
        'hold:sandbox',
        'resolve:sandbox',
        'resume:sandbox',
      ]);
      expect((await outboxEventsOf(t, id)).map((e) => e.type)).toEqual([
        'order.created',
        'order.on_hold',
        'order.on_hold',
        'order.resumed',
      ]);
    });

    it('when another clinic holds an order in the sandbox, then 404', async () => {
      const id = await createOrder(t, setup);
      const other = await t.createClinic();
      const res = await t
        .partner(other.apiKey)
        .post(`/api/external/sandbox/medication-order/${id}/hold`, { reason_code: 'other' });
      expect(res.status).toBe(404);
    });
  });
});
