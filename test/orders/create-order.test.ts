// Over 250 lines: every rule of an order's creation on both databases shares one setup; split by rule when it next grows.
import { SelectQueryNode, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import type { CreateOrderInput } from '../../src/orders/order.schemas.js';
import { createOrder as createThroughService } from '../../src/fulfillment/order-intake.service.js';
import {
  createOrder,
  createOrderSetup,
  createPatient,
  createPractitioner,
  getOrder,
  itemBody,
  orderBody,
  outboxEventsOf,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('POST /api/external/medication-order on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const post = (body: unknown, s: OrderSetup = setup) => t.partner(s.clinic.apiKey).post('/api/external/medication-order', body);

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when an order is checked, then patient, practitioner, shipping and formulary take two reads, whatever the number of items', async () => {
    let reads = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        if (SelectQueryNode.is(args.node)) reads += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const ctx = { ...t.ctx, db: t.ctx.db.withPlugin(counting) };
    const identity = { clinicId: setup.clinic.clinicId, apiKeyId: setup.clinic.apiKeyId };
    const body = orderBody(setup, {
      medication_requests: [itemBody(), itemBody({ medication: 'Tirzepatide' }), itemBody({ medication: 'Semaglutide' })],
    }) as CreateOrderInput;
    const { medication_request_id } = await createThroughService(ctx, identity, body, partnerAuditContext(identity));
    expect(reads).toBe(2);
    expect((await getOrder(t, setup.clinic, medication_request_id)).medication_requests).toHaveLength(3);
  });

  it('when the order is valid, then it answers the spec shape and stores order, items, price, history and event as pending', async () => {
    const res = await post(
      orderBody(setup, {
        is_refrigerated: true,
        shipment_group_id: 'group-1',
        medication_requests: [
          itemBody({
            flavor: 'mint',
            notes: 'first fill',
            do_not_fill: false,
            patient_contact_requested: true,
            reason_for_compounding: 'allergy',
            reason_for_compounding_additional_context: 'dye-free',
          }),
          itemBody({
            medication: 'Progesterone',
            dose: '100 mg',
            unit_of_measure: 'capsules',
            quantity: 30,
            refills: '0',
            direction: 'One at bedtime',
            days_supply: 30,
          }),
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    // Refrigerated on FedEx Ground, which is not cold-chain eligible: accepted, with a warning (docs/shipping.md#cold-chain).
    expect(Object.keys(res.body.data)).toEqual(['medication_request_id', 'warnings']);
    const id = res.body.data.medication_request_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const row = await t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      clinic_id: setup.clinic.clinicId,
      patient_id: setup.patientId,
      practitioner_id: setup.practitionerId,
      status: 'pending',
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
      service_name: 'FedEx Ground®',
      shipping_original_cents: 3244,
      shipping_total_cents: 3244,
      free_shipment_type: null,
      is_refrigerated: 1,
      shipment_group_id: 'group-1',
      refill_of: null,
    });
    const order = await getOrder(t, setup.clinic, id);
    expect(order.medication_requests).toHaveLength(2);
    expect(order.medication_requests[0]).toMatchObject({
      medication: 'Semaglutide',
      dose: '0.25mg',
      unit_of_measure: 'each',
      quantity: 1,
      refills: '2',
      days_supply: 28,
      flavor: 'mint',
      notes: 'first fill',
      patient_contact_requested: true,
      reason_for_compounding: 'allergy',
      reason_for_compounding_additional_context: 'dye-free',
      refills_authorized: 2,
      refills_used: 0,
      refills_remaining: 2,
    });
    expect(order.medication_requests[1]).toMatchObject({
      medication: 'Progesterone',
      unit_of_measure: 'capsules',
      quantity: 30,
      refills: '0',
    });
    expect(order.shipping).toEqual({
      carrier_id: 'fedex',
      carrier_name: 'FedEx',
      service_id: 'fedex_ground',
      service_name: 'FedEx Ground®',
      original_cost: 32.44,
      total_cost: 32.44,
      is_free_shipment: false,
      free_shipment_type: null,
    });
    expect(order.refills).toEqual({ authorized: 2, used: 0, remaining: 2 });
    expect(order.status_history).toEqual([{ from: null, to: 'pending', at: order.created_at, actor: 'partner' }]);
    const events = await outboxEventsOf(t, id);
    expect(events).toEqual([
      {
        type: 'order.created',
        clinic_id: setup.clinic.clinicId,
        payload: {
          medication_request_id: id,
          status: 'pending',
          patient_id: setup.patientId,
          practitioner_id: setup.practitionerId,
          refill_of: null,
          sequence: 1,
        },
      },
    ]);
  });

  it('when the clinic has free shipping, then the order is stored with total 0 and the original price', async () => {
    const free = await createOrderSetup(t, { freeShipping: true });
    const id = await createOrder(t, free);
    const order = await getOrder(t, free.clinic, id);
    expect(order.shipping).toMatchObject({
      original_cost: 32.44,
      total_cost: 0,
      is_free_shipment: true,
      free_shipment_type: 'clinic_specific',
    });
  });

  it('when the patient lives in a state with its own price, then that price is stored', async () => {
    const patientId = await createPatient(t, setup.clinic, {
      overrides: { addresses: [{ addressLine1: '1 Ice Rd', city: 'Anchorage', state: 'AK', postalCode: '99501' }] },
    });
    const id = await createOrder(t, { ...setup, patientId });
    expect((await getOrder(t, setup.clinic, id)).shipping).toMatchObject({ original_cost: 58.99, total_cost: 58.99 });
  });

  it('when a medication differs from the formulary only by case and spaces, then it is accepted under the formulary name', async () => {
    const id = await createOrder(t, setup, { medication_requests: [itemBody({ medication: '  sEmAgLuTiDe  ' })] });
    expect((await getOrder(t, setup.clinic, id)).medication_requests[0].medication).toBe('Semaglutide');
  });

  it('when medications are not in the formulary, then 400 names each of them and nothing is stored', async () => {
    const before = await countOrders();
    const res = await post(
      orderBody(setup, {
        medication_requests: [itemBody(), itemBody({ medication: 'Unobtainium' }), itemBody({ medication: 'Placebo Forte' })],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain('Unobtainium');
    expect(res.body.error.message).toContain('Placebo Forte');
    expect(res.body.error.details).toEqual({
      'medication_requests[1].medication': 'is not in the clinic\u2019s formulary; see GET /api/external/medications',
      'medication_requests[2].medication': 'is not in the clinic\u2019s formulary; see GET /api/external/medications',
    });
    expect(await countOrders()).toBe(before);
  });

  it('when unit_of_measure is omitted, then it is the entry’s dispense unit (`each` here, the entries set none), never the dose’s; when given, it is kept', async () => {
    const id = await createOrder(t, setup, {
      medication_requests: [
        itemBody({ dose: '0.5 mL' }),
        itemBody({ dose: '10 mg', unit_of_measure: 'mg/mL' }),
        itemBody({ dose: 'as directed' }),
        itemBody({ dose: '1000 IU' }),
      ],
    });
    const units = (await getOrder(t, setup.clinic, id)).medication_requests.map(
      (i: { unit_of_measure: string | null }) => i.unit_of_measure,
    );
    expect(units).toEqual(['each', 'mg/mL', 'each', 'each']);
  });

  it('when refills is omitted, then the item authorizes 0 refills', async () => {
    const item = itemBody();
    delete item.refills;
    const id = await createOrder(t, setup, { medication_requests: [item] });
    expect((await getOrder(t, setup.clinic, id)).medication_requests[0]).toMatchObject({
      refills: '0',
      refills_authorized: 0,
    });
  });

  it.each([
    ['a number', 3],
    ['a negative number', '-1'],
    ['a fraction', '1.5'],
    ['a word', 'two'],
    ['empty', ''],
    ['over 99', '100'],
  ])('when refills is %s, then 400 names medication_requests[0].refills', async (_what, refills) => {
    const res = await post(orderBody(setup, { medication_requests: [itemBody({ refills })] }));
    expect(res.status).toBe(400);
    expect(res.body.error.details['medication_requests[0].refills']).toMatch(/whole number of refills/);
  });

  it.each([
    ['quantity', 0],
    ['quantity', -2],
    ['quantity', '1'],
    ['days_supply', 0],
    ['days_supply', -30],
    ['days_supply', 1.5],
    ['days_supply', 366],
  ])('when %s is %s, then 400 names the field', async (field, value) => {
    const res = await post(orderBody(setup, { medication_requests: [itemBody({ [field]: value })] }));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual([`medication_requests[0].${field}`]);
  });

  it.each([
    ['5e-324 (the smallest number above 0)', 5e-324],
    ['0.0001 (below 0.001)', 0.0001],
    ['1.0005 (four decimal places)', 1.0005],
    ['0.30000000000000004 (a binary fraction written out)', 0.30000000000000004],
    ['100000.5 (over 100000)', 100_000.5],
  ])('when quantity is %s, then 400 gives its range and decimal places', async (_what, quantity) => {
    const res = await post(orderBody(setup, { medication_requests: [itemBody({ quantity })] }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      'medication_requests[0].quantity': 'must be a number from 0.001 to 100000 with at most 3 decimal places',
    });
  });

  it.each([0.001, 0.3, 2.5, 0.125, 1e3, 100_000])(
    'when quantity is %s (within its range, at most 3 decimal places), then it is stored and read back as sent',
    async (quantity) => {
      const res = await post(orderBody(setup, { medication_requests: [itemBody({ quantity })] }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const order = await getOrder(t, setup.clinic, res.body.data.medication_request_id);
      expect(order.medication_requests[0].quantity).toBe(quantity);
    },
  );

  it('when required fields are missing, then 400 names each', async () => {
    const res = await post({ medication_requests: [{}] });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual(
      [
        'carrier_id',
        'clinic_id',
        'patient_id',
        'practitioner_id',
        'service_id',
        'medication_requests[0].direction',
        'medication_requests[0].dose',
        'medication_requests[0].medication',
        'medication_requests[0].quantity',
      ].sort(),
    );
  });

  it('when there are no medications or more than 20, then 400 names medication_requests', async () => {
    const none = await post(orderBody(setup, { medication_requests: [] }));
    expect(none.status).toBe(400);
    expect(none.body.error.details.medication_requests).toBe('must have at least 1 item');
    const many = await post(orderBody(setup, { medication_requests: Array.from({ length: 21 }, () => itemBody()) }));
    expect(many.status).toBe(400);
    expect(many.body.error.details.medication_requests).toBe('must have at most 20 items');
  });

  it('when a text field is longer than its limit, then 400 names it', async () => {
    const res = await post(orderBody(setup, { medication_requests: [itemBody({ direction: 'x'.repeat(1001) })] }));
    expect(res.status).toBe(400);
    expect(res.body.error.details['medication_requests[0].direction']).toBe('must be at most 1000 characters');
  });

  it('when the body has an unknown field, then 400 says so with a hint', async () => {
    const res = await post(orderBody(setup, { medications: [] }));
    expect(res.status).toBe(400);
    expect(res.body.error.details.medications).toBe('is not a known field; did you mean medication_requests?');
  });

  it('when clinic_id is an unknown clinic, then 400 says the clinic was not found', async () => {
    const res = await post(orderBody(setup, { clinic_id: '00000000-0000-4000-8000-000000000000' }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Clinic not found');
  });

  it('when clinic_id is another clinic, then 403', async () => {
    const other = await t.createClinic();
    const res = await post(orderBody(setup, { clinic_id: other.clinicId }));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('when the patient belongs to another clinic, then 404 names the patient', async () => {
    const other = await createOrderSetup(t);
    const res = await post(orderBody(setup, { patient_id: other.patientId }));
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Patient not found',
      details: { patient_id: 'no patient with this id in your clinic' },
    });
  });

  it('when the practitioner belongs to another clinic, then 404 names the practitioner', async () => {
    const other = await createOrderSetup(t);
    const res = await post(orderBody(setup, { practitioner_id: other.practitionerId }));
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Practitioner not found' });
    expect(Object.keys(res.body.error.details)).toEqual(['practitioner_id']);
  });

  it('when neither exists, then 404 names both', async () => {
    const res = await post(
      orderBody(setup, {
        patient_id: '00000000-0000-4000-8000-000000000001',
        practitioner_id: '00000000-0000-4000-8000-000000000002',
      }),
    );
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Patient and practitioner not found');
  });

  it('when the carrier is unknown, then 400 names carrier_id', async () => {
    const res = await post(orderBody(setup, { carrier_id: 'pony_express' }));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['carrier_id']);
    expect(res.body.error.message).toContain('Unknown carrier pony_express');
  });

  it('when the service is not one of the carrier\u2019s, then 400 names service_id', async () => {
    const res = await post(orderBody(setup, { carrier_id: 'fedex', service_id: 'ups_ground' }));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['service_id']);
  });

  it('when the patient has no shipping address, then 400 says so', async () => {
    const patientId = await createPatient(t, setup.clinic);
    await t.ctx.db
      .updateTable('patients')
      .set({ address_line_1: null, address_line_2: null, city: null, state: null, postal_code: null })
      .where('id', '=', patientId)
      .execute();
    const res = await post(orderBody({ ...setup, patientId }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('The patient has no shipping address');
    expect(Object.keys(res.body.error.details)).toEqual(['patient_id']);
  });

  it('when a veterinarian prescribes for a human patient, then 400', async () => {
    const vetId = await createPractitioner(t, setup.clinic, { veterinarian: true });
    const res = await post(orderBody(setup, { practitioner_id: vetId }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('A veterinarian cannot prescribe for a human patient');
    expect(Object.keys(res.body.error.details)).toEqual(['practitioner_id']);
  });

  it('when a human practitioner prescribes for an animal, then 400', async () => {
    const dogId = await createPatient(t, setup.clinic, { species: 'canine' });
    const res = await post(orderBody({ ...setup, patientId: dogId }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('cannot prescribe for a canine patient');
  });

  it('when a veterinarian prescribes for an animal, then the order is created', async () => {
    const vet = await createOrderSetup(t, { veterinary: true });
    const res = await post(orderBody(vet, { medication_requests: [itemBody({ medication: 'Gabapentin', dose: '50 mg' })] }), vet);
    expect(res.status).toBe(200);
  });

  it('when several rules are broken at once, then one 400 names every field', async () => {
    const vetId = await createPractitioner(t, setup.clinic, { veterinarian: true });
    const res = await post(
      orderBody(setup, {
        practitioner_id: vetId,
        service_id: 'nope',
        medication_requests: [itemBody({ medication: 'Nothing' })],
      }),
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual([
      'medication_requests[0].medication',
      'practitioner_id',
      'service_id',
    ]);
  });

  it('when the API key is missing, then 401', async () => {
    const res = await t.request('POST', '/api/external/medication-order', {
      headers: { 'content-type': 'application/json' },
      body: orderBody(setup),
    });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/^Unauthorized/);
  });

  async function countOrders(): Promise<number> {
    const rows = await t.ctx.db.selectFrom('medication_requests').select('id').execute();
    return rows.length;
  }
});
