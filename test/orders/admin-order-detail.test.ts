import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../audit/support.js';
import { advanceOrder, createOrder, createOrderSetup, itemBody, requestRefill, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('the operator\u2019s order page on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  /** A chain: the first order, its refill, and the refill of that refill. */
  let first: string;
  let refill: string;
  let secondRefill: string;
  // Every reading one second later: the chain's orders are created in a known order.
  let now = Date.parse('2030-02-01T00:00:00.000Z');
  const clock = () => new Date((now += 1000));

  const read = (id: string) => t.operator.get(`/api/admin/medication-requests/${id}`);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock });
    setup = await createOrderSetup(t, {
      clinicName: 'Northside Veterinary',
      patient: { first_name: 'Ada', middle_name: 'King', last_name: 'Lovelace' },
    });
    first = await createOrder(t, setup, {
      medication_requests: [
        itemBody(),
        itemBody({ medication: 'Tirzepatide', dose: '2.5mg', quantity: 4, refills: '1', direction: 'Inject weekly' }),
      ],
    });
    await advanceOrder(t, setup.clinic, first, 'shipped');
    refill = (await requestRefill(t, setup.clinic, first)).medication_order_id;
    await advanceOrder(t, setup.clinic, refill, 'shipped');
    secondRefill = (await requestRefill(t, setup.clinic, refill)).medication_order_id;
  });
  afterAll(async () => t.close());

  it('when the operator reads an order, then it shows the items, whom and where it ships to, its shipping, tracking and history', async () => {
    const res = await read(first);
    expect(res.status).toBe(200);
    const order = res.body.data;
    expect(order).toMatchObject({
      medication_request_id: first,
      clinic_id: setup.clinic.clinicId,
      clinic_name: 'Northside Veterinary',
      status: 'shipped',
      tracking_number: expect.stringMatching(/^\d{12}$/),
      shipping: { carrier_name: 'FedEx', service_name: 'FedEx Ground®', total_cost: 32.44 },
      patient: {
        patient_id: setup.patientId,
        first_name: 'Ada',
        middle_name: 'King',
        last_name: 'Lovelace',
        shipping_address: {
          address_line_1: '2 Elm St',
          address_line_2: 'Apt 3',
          city: 'Sacramento',
          state: 'CA',
          postal_code: '95814',
        },
      },
    });
    expect(
      order.medication_requests.map((i: Record<string, unknown>) => [i.medication, i.dose, i.quantity, i.direction, i.refills]),
    ).toEqual([
      ['Semaglutide', '0.25mg', 1, 'Inject 0.25 mg subcutaneously once weekly', '2'],
      ['Tirzepatide', '2.5mg', 4, 'Inject weekly', '1'],
    ]);
    expect(order.status_history.map((h: { from: string | null; to: string }) => [h.from, h.to])).toEqual([
      [null, 'pending'],
      ['pending', 'processing'],
      ['processing', 'shipped'],
    ]);
  });

  it('when the operator reads an order, then it names the prescriber (NPI, veterinarian or not) and the patient’s date of birth, species and phone', async () => {
    const order = (await read(first)).body.data;
    expect(order.patient).toMatchObject({ dob: '1980-12-09', species: 'human', phone: '555-555-0101' });
    expect(order.practitioner).toEqual({
      practitioner_id: setup.practitionerId,
      first_name: 'Ada',
      last_name: 'Lovelace',
      npi: '1234567893',
      is_veterinarian: false,
      phone: '555-555-0100',
    });
    const vet = await createOrderSetup(t, {
      veterinary: true,
      patient: { first_name: 'Rex', contacts: [{ key: 'sms', value: '555-555-0199' }] },
    });
    const dogOrder = (await read(await createOrder(t, vet))).body.data;
    expect(dogOrder.patient).toMatchObject({ first_name: 'Rex', species: 'canine', phone: '555-555-0199' });
    expect(dogOrder.practitioner).toMatchObject({ last_name: 'Herriot', npi: 'VET-TX-4411', is_veterinarian: true });
  });

  it('when an order is read, then each item carries its directions, days’ supply, refills, compounding reason and notes, and the order its refrigeration and shipment group', async () => {
    const id = await createOrder(t, setup, {
      is_refrigerated: true,
      medication_requests: [
        itemBody({
          notes: 'Patient prefers morning delivery',
          reason_for_compounding: 'Dye-free formulation',
          flavor: 'Cherry',
        }),
      ],
    });
    const order = (await read(id)).body.data;
    expect(order).toMatchObject({ is_refrigerated: true, shipment_group_id: null });
    expect(order.medication_requests[0]).toMatchObject({
      direction: 'Inject 0.25 mg subcutaneously once weekly',
      days_supply: 28,
      refills: '2',
      reason_for_compounding: 'Dye-free formulation',
      notes: 'Patient prefers morning delivery',
      flavor: 'Cherry',
    });
  });

  it('when an order of a refill chain is read, then the chain lists every order of it, oldest first, whichever order is read', async () => {
    const chain = [
      { medication_request_id: first, status: 'shipped', refill_of: null, created_at: expect.any(String) },
      { medication_request_id: refill, status: 'shipped', refill_of: first, created_at: expect.any(String) },
      { medication_request_id: secondRefill, status: 'pending', refill_of: refill, created_at: expect.any(String) },
    ];
    for (const id of [first, refill, secondRefill]) {
      const res = await read(id);
      expect(res.status).toBe(200);
      expect(res.body.data.refill_chain).toEqual(chain);
    }
  });

  it('when an order was never refilled, then its chain is itself alone, and a patient without a middle name has null', async () => {
    const other = await createOrderSetup(t);
    const id = await createOrder(t, other);
    const res = await read(id);
    expect(res.body.data.refill_chain).toEqual([
      { medication_request_id: id, status: 'pending', refill_of: null, created_at: expect.any(String) },
    ]);
    expect(res.body.data.patient).toMatchObject({ first_name: 'Grace', middle_name: null, last_name: 'Hopper' });
    expect(res.body.data.clinic_name).toBe('Test Clinic');
  });

  it('when the operator reads an order, then the trail records reads of the order, its patient and the chain\u2019s other orders', async () => {
    const res = await read(refill);
    expect(res.status).toBe(200);
    const rows = (await auditRows(t.ctx)).filter((row) => row.request_id === res.headers['x-request-id']);
    const clinicId = setup.clinic.clinicId;
    expect(rows.map((row) => [row.actor_type, row.action, row.resource_type, row.resource_id, row.clinic_id]).sort()).toEqual(
      [
        ['operator', 'read', 'medication_request', refill, clinicId],
        ['operator', 'read', 'medication_request', first, clinicId],
        ['operator', 'read', 'medication_request', secondRefill, clinicId],
        ['operator', 'read', 'patient', setup.patientId, clinicId],
      ].sort(),
    );
  });

  it('when the order does not exist, then 404 and nothing is recorded', async () => {
    const res = await read('00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    const rows = (await auditRows(t.ctx)).filter((row) => row.request_id === res.headers['x-request-id']);
    expect(rows).toEqual([]);
  });

  it('when the operator changes the status, then the answer is the order\u2019s new state without its patient (no new read of PHI)', async () => {
    const id = await createOrder(t, setup);
    const res = await t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'processing' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ medication_request_id: id, status: 'processing' });
    expect(res.body.data).not.toHaveProperty('patient');
  });
});
