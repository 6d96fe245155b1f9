import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  createPatient,
  expectOk,
  getOrder,
  orderBody,
  requestRefill,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** Issue 31, item 5: delivery options on the order, and cold chain (docs/shipping.md#delivery-options, #cold-chain). */
describe.each(DIALECTS)('delivery options and cold chain on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  /** One patient per order: the same medication twice for one patient is held as duplicate therapy. */
  const fresh = async (): Promise<OrderSetup> => ({
    ...setup,
    patientId: await createPatient(t, setup.clinic, { practitionerId: setup.practitionerId }),
  });
  const post = async (overrides: Record<string, unknown>) =>
    t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(await fresh(), overrides));

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
    // The overnight service is eligible (as the sandbox seeds it); FedEx Ground is not.
    expectOk(
      await t.operator.put('/api/admin/carriers/fedex/services/fedex_priority_overnight', { cold_chain_eligible: true }),
      'mark overnight eligible',
    );
  });
  afterAll(async () => t.close());

  describe('delivery options', () => {
    it('when an order asks for a signature and Saturday delivery, then they are stored and shown by the partner\u2019s read and list and the operator\u2019s read', async () => {
      const parties = await fresh();
      const id = await createOrder(t, parties, { signature_required: true, saturday_delivery: true });
      const row = await t.ctx.db
        .selectFrom('medication_requests')
        .select(['signature_required', 'saturday_delivery'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ signature_required: 1, saturday_delivery: 1 });

      expect(await getOrder(t, setup.clinic, id)).toMatchObject({ signature_required: true, saturday_delivery: true });
      const page = expectOk(
        await t.partner(setup.clinic.apiKey).get(`/api/external/medication-orders?patient_id=${parties.patientId}`),
        'list',
      );
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({ medication_request_id: id, signature_required: true, saturday_delivery: true });
      const operator = expectOk(await t.operator.get(`/api/admin/medication-requests/${id}`), 'operator read');
      expect(operator).toMatchObject({ signature_required: true, saturday_delivery: true });
    });

    it('when an order gives one option only, or none, then the others are false', async () => {
      const signature = await createOrder(t, await fresh(), { signature_required: true });
      expect(await getOrder(t, setup.clinic, signature)).toMatchObject({ signature_required: true, saturday_delivery: false });
      const saturday = await createOrder(t, await fresh(), { saturday_delivery: true, signature_required: false });
      expect(await getOrder(t, setup.clinic, saturday)).toMatchObject({ signature_required: false, saturday_delivery: true });
      const none = await createOrder(t, await fresh());
      expect(await getOrder(t, setup.clinic, none)).toMatchObject({ signature_required: false, saturday_delivery: false });
    });

    it('when an option is not a boolean, then 400 naming it', async () => {
      const res = await post({ signature_required: 'yes', saturday_delivery: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.error.details).sort()).toEqual(['saturday_delivery', 'signature_required']);
    });

    it('when a refill is made of an order, then it keeps the order\u2019s delivery options', async () => {
      const parties = await fresh();
      const id = await createOrder(t, parties, { signature_required: true, saturday_delivery: true });
      await advanceOrder(t, setup.clinic, id, 'shipped');
      const refill = await requestRefill(t, setup.clinic, id);
      expect(await getOrder(t, setup.clinic, refill.medication_order_id)).toMatchObject({
        refill_of: id,
        signature_required: true,
        saturday_delivery: true,
      });

      const plainParties = await fresh();
      const plain = await createOrder(t, plainParties);
      await advanceOrder(t, setup.clinic, plain, 'shipped');
      const plainRefill = await requestRefill(t, setup.clinic, plain);
      expect(await getOrder(t, setup.clinic, plainRefill.medication_order_id)).toMatchObject({
        signature_required: false,
        saturday_delivery: false,
      });
    });
  });

  describe('cold chain (COLD_CHAIN_POLICY=warn, the default)', () => {
    it('when a refrigerated order ships on a service that is not cold-chain eligible, then it is accepted with a warning naming the service', async () => {
      const res = await post({ is_refrigerated: true, service_id: 'fedex_ground' });
      expect(res.status).toBe(200);
      expect(res.body.data.warnings).toHaveLength(1);
      const [warning] = res.body.data.warnings as string[];
      expect(warning).toContain('fedex_ground');
      expect(warning).toContain('FedEx Ground®');
      expect(warning).toContain('not cold-chain eligible');
      const order = await getOrder(t, setup.clinic, res.body.data.medication_request_id);
      expect(order).toMatchObject({ status: 'pending', is_refrigerated: true, shipping: { service_id: 'fedex_ground' } });
      // The answer only: the order's read carries no warnings.
      expect(order).not.toHaveProperty('warnings');
    });

    it('when a refrigerated order ships on an eligible service, or an order is not refrigerated, then there is no warnings field', async () => {
      const eligible = await post({ is_refrigerated: true, service_id: 'fedex_priority_overnight' });
      expect(eligible.status).toBe(200);
      expect(Object.keys(eligible.body.data)).toEqual(['medication_request_id']);
      const ambient = await post({ is_refrigerated: false, service_id: 'fedex_ground' });
      expect(Object.keys(ambient.body.data)).toEqual(['medication_request_id']);
      const unsaid = await post({ service_id: 'fedex_ground' });
      expect(Object.keys(unsaid.body.data)).toEqual(['medication_request_id']);
    });

    it('when the operator marks a service eligible, then the next refrigerated order on it has no warning', async () => {
      const before = await post({ is_refrigerated: true, carrier_id: 'usps', service_id: 'usps_priority_express' });
      expect(before.body.data.warnings).toHaveLength(1);
      expectOk(
        await t.operator.put('/api/admin/carriers/usps/services/usps_priority_express', { cold_chain_eligible: true }),
        'mark eligible',
      );
      const after = await post({ is_refrigerated: true, carrier_id: 'usps', service_id: 'usps_priority_express' });
      expect(after.status).toBe(200);
      expect(after.body.data.warnings).toBeUndefined();
    });
  });
});

describe.each(DIALECTS)('COLD_CHAIN_POLICY=refuse on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const post = async (overrides: Record<string, unknown>) =>
    t
      .partner(setup.clinic.apiKey)
      .post(
        '/api/external/medication-order',
        orderBody(
          { ...setup, patientId: await createPatient(t, setup.clinic, { practitionerId: setup.practitionerId }) },
          overrides,
        ),
      );

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: { COLD_CHAIN_POLICY: 'refuse' } });
    setup = await createOrderSetup(t);
    const eligible: [string, string][] = [
      ['fedex', 'fedex_priority_overnight'],
      ['fedex', 'fedex_2day'],
      ['usps', 'usps_priority_express'],
    ];
    for (const [carrier, service] of eligible) {
      expectOk(
        await t.operator.put(`/api/admin/carriers/${carrier}/services/${service}`, { cold_chain_eligible: true }),
        'mark eligible',
      );
    }
  });
  afterAll(async () => t.close());

  it('when a refrigerated order ships on a service that is not eligible, then 400 VALIDATION_ERROR naming service_id and listing the carrier\u2019s eligible services, and nothing is stored', async () => {
    const before = await t.ctx.db.selectFrom('medication_requests').select('id').execute();
    const res = await post({ is_refrigerated: true, service_id: 'fedex_ground' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(res.body.error.details)).toEqual(['service_id']);
    const problem = res.body.error.details.service_id as string;
    expect(problem).toContain('not cold-chain eligible');
    // FedEx's eligible ones, in display order (by price), and no other carrier's.
    expect(problem).toContain('fedex_2day (FedEx 2Day®), fedex_priority_overnight (FedEx Priority Overnight®)');
    expect(problem).not.toContain('usps');
    expect(res.body.error.message).toContain('fedex_ground');
    expect(res.body.error.message).toContain('fedex_priority_overnight');
    expect(await t.ctx.db.selectFrom('medication_requests').select('id').execute()).toHaveLength(before.length);
  });

  it('when the carrier has no eligible service, then the refusal lists every carrier\u2019s eligible services', async () => {
    const res = await post({ is_refrigerated: true, carrier_id: 'ups', service_id: 'ups_ground' });
    expect(res.status).toBe(400);
    const problem = res.body.error.details.service_id as string;
    expect(problem).toContain('ups has no cold-chain eligible service');
    expect(problem).toContain('fedex/fedex_priority_overnight');
    expect(problem).toContain('usps/usps_priority_express');
  });

  it('when the order has other problems too, then one 400 names each of them', async () => {
    const res = await post({
      is_refrigerated: true,
      service_id: 'fedex_ground',
      medication_requests: [{ medication: 'Unobtainium', dose: '1mg', quantity: 1, direction: 'Daily' }],
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual(['medication_requests[0].medication', 'service_id']);
  });

  it('when a refrigerated order ships on an eligible service, or an order is not refrigerated, then it is accepted without warnings', async () => {
    const eligible = await post({ is_refrigerated: true, service_id: 'fedex_priority_overnight' });
    expect(eligible.status).toBe(200);
    expect(Object.keys(eligible.body.data)).toEqual(['medication_request_id']);
    const ambient = await post({ service_id: 'fedex_ground' });
    expect(ambient.status).toBe(200);
    expect(Object.keys(ambient.body.data)).toEqual(['medication_request_id']);
  });
});
