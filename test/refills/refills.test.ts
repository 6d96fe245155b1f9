import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  getOrder,
  itemBody,
  outboxEventsOf,
  requestRefill,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('refills on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const refill = (medication_request_id: string, extra: Record<string, unknown> = {}, s: OrderSetup = setup) =>
    t.partner(s.clinic.apiKey).post('/api/external/refill-request', { medication_request_id, ...extra });
  const getRefill = (id: string, s: OrderSetup = setup) => t.partner(s.clinic.apiKey).get(`/api/external/refill-request/${id}`);

  /** A new order with the given medications, moved to `status` in the sandbox. */
  async function orderIn(
    status: 'pending' | 'processing' | 'shipped' | 'delivered' | 'cancelled',
    items = [itemBody()],
  ): Promise<string> {
    const id = await createOrder(t, setup, { medication_requests: items });
    if (status !== 'pending') await advanceOrder(t, setup.clinic, id, status);
    return id;
  }

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when a shipped order is refilled, then a refill request, a new prescription and a new pending order are created, with both events', async () => {
    const original = await orderIn('shipped', [itemBody({ refills: '3' })]);
    const res = await refill(original, { shipment_group_id: 'refills-june' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual(['medication_order_id', 'refill_request_id']);
    const { refill_request_id: refillId, medication_order_id: newId } = res.body.data;

    const order = await getOrder(t, setup.clinic, newId);
    const first = await getOrder(t, setup.clinic, original);
    expect(order).toMatchObject({
      status: 'pending',
      patient_id: setup.patientId,
      practitioner_id: setup.practitionerId,
      refill_of: original,
      chain_origin_id: original,
      refill_request_id: refillId,
      shipment_group_id: 'refills-june',
      shipping: first.shipping,
      refills: { authorized: 3, used: 1, remaining: 2 },
    });
    expect(order.prescription_id).not.toBe(first.prescription_id);
    expect(order.medication_requests[0]).toMatchObject({
      medication: 'Semaglutide',
      dose: '0.25mg',
      refills: '2',
      refills_used: 1,
      refills_remaining: 2,
    });
    expect(first.refills).toEqual({ authorized: 3, used: 1, remaining: 2 });
    const prescription = await t.ctx.db
      .selectFrom('prescriptions')
      .selectAll()
      .where('id', '=', order.prescription_id)
      .executeTakeFirstOrThrow();
    expect(prescription.original_prescription_id).toBe(first.prescription_id);

    expect((await outboxEventsOf(t, newId)).map((e) => [e.type, e.payload])).toEqual([
      [
        'order.created',
        {
          medication_request_id: newId,
          status: 'pending',
          patient_id: setup.patientId,
          practitioner_id: setup.practitionerId,
          refill_of: original,
          sequence: 1,
        },
      ],
      [
        'refill.ready',
        {
          refill_request_id: refillId,
          medication_request_id: newId,
          original_medication_request_id: original,
          status: 'open',
          sequence: 2,
        },
      ],
    ]);

    const read = await getRefill(refillId);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      refill_request_id: refillId,
      status: 'open',
      medication_request_id: original,
      medication_order_id: newId,
      medication_order_status: 'pending',
      shipment_group_id: 'refills-june',
    });
  });

  it('when a delivered order is refilled, then it is accepted', async () => {
    const original = await orderIn('delivered');
    expect((await refill(original)).status).toBe(200);
  });

  it('when the medication request does not exist, then 400 "Medication request not found"', async () => {
    const res = await refill('00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Medication request not found' });
  });

  it('when the medication request belongs to another clinic, then 400 "Medication request not found"', async () => {
    const other = await createOrderSetup(t);
    const theirs = await createOrder(t, other);
    await advanceOrder(t, other.clinic, theirs, 'shipped');
    const res = await refill(theirs);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Medication request not found');
  });

  it('when the medication request is pending, then 400 with the spec\u2019s message', async () => {
    const res = await refill(await orderIn('pending'));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Refills are not possible for pending medication requests');
  });

  it('when the medication request is processing, then 400 says it has not shipped yet', async () => {
    const res = await refill(await orderIn('processing'));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'Refills are not possible for medication requests that are still processing: request one once it has shipped',
    );
  });

  it('when the medication request is cancelled, then 400 says so', async () => {
    const res = await refill(await orderIn('cancelled'));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Refills are not possible for cancelled medication requests');
  });

  it('when a refill request is still open for the medication request, then 400 "Refill request already exists" and nothing is created', async () => {
    const original = await orderIn('shipped');
    await requestRefill(t, setup.clinic, original);
    const before = await t.ctx.db.selectFrom('medication_requests').select('id').execute();
    const res = await refill(original);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Refill request already exists');
    expect(await t.ctx.db.selectFrom('medication_requests').select('id').execute()).toHaveLength(before.length);
  });

  it('when the open refill\u2019s order ships, then the refill request is fulfilled and another refill may be requested', async () => {
    const original = await orderIn('shipped');
    const first = await requestRefill(t, setup.clinic, original);
    await advanceOrder(t, setup.clinic, first.medication_order_id, 'shipped');
    expect((await getRefill(first.refill_request_id)).body.data).toMatchObject({
      status: 'fulfilled',
      medication_order_status: 'shipped',
    });
    expect((await refill(original)).status).toBe(200);
  });

  it('when refills are requested along the chain until none are left, then each counts against the one prescription and the next is refused', async () => {
    const original = await orderIn('shipped', [itemBody({ refills: '2' })]);
    const first = await requestRefill(t, setup.clinic, original);
    await advanceOrder(t, setup.clinic, first.medication_order_id, 'delivered');
    const second = await requestRefill(t, setup.clinic, first.medication_order_id); // a refill of the refill
    await advanceOrder(t, setup.clinic, second.medication_order_id, 'shipped');

    const secondOrder = await getOrder(t, setup.clinic, second.medication_order_id);
    expect(secondOrder).toMatchObject({
      refill_of: first.medication_order_id,
      chain_origin_id: original,
      refills: { authorized: 2, used: 2, remaining: 0 },
    });
    expect(secondOrder.medication_requests[0].refills).toBe('0');
    expect((await getOrder(t, setup.clinic, original)).refills).toEqual({ authorized: 2, used: 2, remaining: 0 });

    for (const target of [second.medication_order_id, first.medication_order_id, original]) {
      const res = await refill(target);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Refills exhausted: all 2 refills authorized by this prescription have been used');
    }
    const chain = await t.ctx.db.selectFrom('medication_requests').select('id').where('chain_origin_id', '=', original).execute();
    expect(chain).toHaveLength(2);
  });

  it('when the one authorized refill has been used, then 400 says so', async () => {
    const original = await orderIn('shipped', [itemBody({ refills: '1' })]);
    const first = await requestRefill(t, setup.clinic, original);
    await advanceOrder(t, setup.clinic, first.medication_order_id, 'shipped');
    const res = await refill(original);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Refills exhausted: the 1 refill authorized by this prescription has been used',
      details: { medication_request_id: 'its prescription has no refills left' },
    });
  });

  it('when the prescription authorizes no refills, then 400 says so', async () => {
    const original = await orderIn('shipped', [itemBody({ refills: '0' })]);
    const res = await refill(original);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Refills are not authorized for this prescription: it allows no refills');
  });

  it('when every medication is do_not_refill, then 400 says no refills are authorized', async () => {
    const original = await orderIn('shipped', [itemBody({ refills: '5', do_not_refill: true })]);
    const res = await refill(original);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Refills are not authorized for this prescription: it allows no refills');
    expect((await getOrder(t, setup.clinic, original)).refills).toEqual({ authorized: 0, used: 0, remaining: 0 });
  });

  it('when some medications are do_not_refill, then the refill copies only the others', async () => {
    const original = await orderIn('shipped', [
      itemBody({ medication: 'Semaglutide', refills: '2' }),
      itemBody({ medication: 'Progesterone', dose: '100 mg', refills: '5', do_not_refill: true }),
    ]);
    const { medication_order_id } = await requestRefill(t, setup.clinic, original);
    const order = await getOrder(t, setup.clinic, medication_order_id);
    expect(order.medication_requests.map((i: { medication: string }) => i.medication)).toEqual(['Semaglutide']);
  });

  it('when medications authorize different refills, then the chain lasts as long as the most and each refill copies those with refills left', async () => {
    const original = await orderIn('shipped', [
      itemBody({ medication: 'Semaglutide', refills: '1' }),
      itemBody({ medication: 'Gabapentin', dose: '50 mg', refills: '3' }),
    ]);
    const meds = async (id: string) =>
      (await getOrder(t, setup.clinic, id)).medication_requests.map(
        (i: { medication: string; refills: string }) => `${i.medication}:${i.refills}`,
      );

    let target = original;
    const copies: string[][] = [];
    for (let n = 0; n < 3; n += 1) {
      const next = await requestRefill(t, setup.clinic, target);
      copies.push(await meds(next.medication_order_id));
      await advanceOrder(t, setup.clinic, next.medication_order_id, 'shipped');
      target = next.medication_order_id;
    }
    expect(copies).toEqual([['Semaglutide:0', 'Gabapentin:2'], ['Gabapentin:1'], ['Gabapentin:0']]);
    const order = await getOrder(t, setup.clinic, original);
    expect(order.refills).toEqual({ authorized: 3, used: 3, remaining: 0 });
    expect(
      order.medication_requests.map((i: { refills_used: number; refills_remaining: number }) => [
        i.refills_used,
        i.refills_remaining,
      ]),
    ).toEqual([
      [1, 0],
      [3, 0],
    ]);
    const res = await refill(target);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Refills exhausted: all 3 refills authorized by this prescription have been used');
  });

  it('when a refill\u2019s order is cancelled, then its refill request is cancelled and the refill is given back', async () => {
    const original = await orderIn('shipped', [itemBody({ refills: '1' })]);
    const first = await requestRefill(t, setup.clinic, original);
    expect((await getOrder(t, setup.clinic, original)).refills.remaining).toBe(0);

    const cancel = await t
      .partner(setup.clinic.apiKey)
      .post(`/api/external/medication-order/${first.medication_order_id}/cancel`);
    expect(cancel.status).toBe(200);
    expect((await getRefill(first.refill_request_id)).body.data.status).toBe('cancelled');
    expect((await getOrder(t, setup.clinic, original)).refills).toEqual({ authorized: 1, used: 0, remaining: 1 });
    expect((await refill(original)).status).toBe(200);
  });

  it('when shipping prices changed since the original, then the refill is priced at today\u2019s price', async () => {
    const own = await createOrderSetup(t);
    const original = await createOrder(t, own, { carrier_id: 'usps', service_id: 'usps_priority' });
    await advanceOrder(t, own.clinic, original, 'shipped');
    await t.ctx.db
      .updateTable('shipping_services')
      .set({ price_cents: 1399 })
      .where('carrier_id', '=', 'usps')
      .where('id', '=', 'usps_priority')
      .execute();
    try {
      const { medication_order_id } = await requestRefill(t, own.clinic, original);
      expect((await getOrder(t, own.clinic, original)).shipping).toMatchObject({
        original_cost: 12.5,
        total_cost: 12.5,
      });
      expect((await getOrder(t, own.clinic, medication_order_id)).shipping).toMatchObject({
        carrier_id: 'usps',
        service_id: 'usps_priority',
        original_cost: 13.99,
        total_cost: 13.99,
      });
    } finally {
      await t.ctx.db
        .updateTable('shipping_services')
        .set({ price_cents: 1250 })
        .where('carrier_id', '=', 'usps')
        .where('id', '=', 'usps_priority')
        .execute();
    }
  });

  it('when the clinic got free shipping since the original, then the refill ships free', async () => {
    const own = await createOrderSetup(t);
    const original = await createOrder(t, own);
    await advanceOrder(t, own.clinic, original, 'shipped');
    await t.ctx.db.updateTable('clinics').set({ free_shipping: 1 }).where('id', '=', own.clinic.clinicId).execute();
    const { medication_order_id } = await requestRefill(t, own.clinic, original);
    expect((await getOrder(t, own.clinic, medication_order_id)).shipping).toMatchObject({
      total_cost: 0,
      original_cost: 32.44,
      free_shipment_type: 'clinic_specific',
    });
  });

  it('when a medication left the formulary, then the refill is refused naming it', async () => {
    const own = await createOrderSetup(t);
    const original = await createOrder(t, own, { medication_requests: [itemBody({ medication: 'Tirzepatide' })] });
    await advanceOrder(t, own.clinic, original, 'shipped');
    await t.ctx.db
      .deleteFrom('medications')
      .where('clinic_id', '=', own.clinic.clinicId)
      .where('name_key', '=', 'tirzepatide')
      .execute();
    const res = await refill(original, {}, own);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('No longer in the clinic\u2019s formulary: Tirzepatide');
  });

  it('when the refill body is malformed or has an unknown field, then 400 names the field', async () => {
    const bad = await t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({ medication_request_id: 'must be a UUID' });
    const extra = await refill('00000000-0000-4000-8000-000000000000', { clinic_id: setup.clinic.clinicId });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details.clinic_id).toMatch(/^is not a known field/);
  });

  it('when a refill request of another clinic or an unknown one is read, then 404', async () => {
    const original = await orderIn('shipped');
    const { refill_request_id } = await requestRefill(t, setup.clinic, original);
    const other = await createOrderSetup(t);
    expect((await getRefill(refill_request_id, other)).status).toBe(404);
    const unknown = await getRefill('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('Refill request not found');
  });
});
