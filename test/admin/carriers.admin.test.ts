import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { insertTestPatient } from '../shipping/shipping-fixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(DIALECTS)('operator API for carriers and prices on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  const statePrices = (carrierId: string, serviceId: string) =>
    t.ctx.db
      .selectFrom('shipping_service_state_prices')
      .select(['state_code', 'price_cents'])
      .where('carrier_id', '=', carrierId)
      .where('service_id', '=', serviceId)
      .orderBy('state_code')
      .execute();

  describe('carriers', () => {
    it('when a carrier is created without an id, then the id is derived from the name', async () => {
      const res = await t.operator.post('/api/admin/carriers', { name: 'Stamps.com' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { id: 'stamps_com', name: 'Stamps.com', created_at: expect.stringMatching(ISO), services: [] },
        message: 'Carrier created',
      });
      const row = await t.ctx.db.selectFrom('carriers').selectAll().where('id', '=', 'stamps_com').executeTakeFirst();
      expect(row?.name).toBe('Stamps.com');
    });

    it('when a carrier is created with an id, then that id is used', async () => {
      const res = await t.operator.post('/api/admin/carriers', { id: 'se-3818360', name: 'ShipEngine USPS' });
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe('se-3818360');
    });

    it('when the id is taken (given or derived), then 409 CONFLICT and the first carrier is unchanged', async () => {
      const given = await t.operator.post('/api/admin/carriers', { id: 'fedex', name: 'Another FedEx' });
      expect(given.status).toBe(409);
      expect(given.body.error).toMatchObject({
        code: 'CONFLICT',
        message: 'Carrier "fedex" already exists',
        details: { id: 'already exists' },
      });
      const derived = await t.operator.post('/api/admin/carriers', { name: 'UPS' });
      expect(derived.status).toBe(409);
      const row = await t.ctx.db.selectFrom('carriers').select('name').where('id', '=', 'fedex').executeTakeFirst();
      expect(row?.name).toBe('FedEx');
    });

    it.each([
      [{}, { name: 'is required' }],
      [{ name: ' ' }, { name: 'must not be blank' }],
      [{ name: 'X', id: 'has space' }, { id: 'has an invalid format' }],
      [{ name: 'X', id: '' }, { id: 'must not be empty' }],
      [{ name: 'X', carrier_id: 'x' }, { carrier_id: 'is not a known field' }],
    ])('when the carrier body is %j, then 400 naming the field', async (body, details) => {
      const res = await t.operator.post('/api/admin/carriers', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toEqual(details);
    });

    it('when the name has no letters or digits and no id is given, then 400 asking for an id', async () => {
      const res = await t.operator.post('/api/admin/carriers', { name: '® ®' });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ id: 'is required when the name has no letters or digits' });
    });

    it('when carriers are listed, then each comes with its services, base prices and state prices in dollars', async () => {
      const res = await t.operator.get('/api/admin/carriers');
      expect(res.status).toBe(200);
      const fedex = res.body.data.carriers.find((c: { id: string }) => c.id === 'fedex');
      expect(fedex).toEqual({
        id: 'fedex',
        name: 'FedEx',
        created_at: expect.stringMatching(ISO),
        services: [
          {
            carrier_id: 'fedex',
            id: 'fedex_ground',
            name: 'FedEx Ground®',
            price: 32.44,
            state_prices: { AK: 58.99, HI: 58.99 },
            cold_chain_eligible: false,
            created_at: expect.stringMatching(ISO),
          },
          {
            carrier_id: 'fedex',
            id: 'fedex_2day',
            name: 'FedEx 2Day®',
            price: 45.95,
            state_prices: { AK: 74.5, HI: 74.5 },
            cold_chain_eligible: false,
            created_at: expect.stringMatching(ISO),
          },
          {
            carrier_id: 'fedex',
            id: 'fedex_priority_overnight',
            name: 'FedEx Priority Overnight®',
            price: 89.5,
            state_prices: {},
            cold_chain_eligible: false,
            created_at: expect.stringMatching(ISO),
          },
        ],
      });
      expect(res.body.data.carriers.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining(['fedex', 'ups', 'usps']));
    });
  });

  describe('services', () => {
    it('when a service is added with state prices, then it is stored in cents and returned in dollars', async () => {
      await t.operator.post('/api/admin/carriers', { id: 'ameriship', name: 'Ameriship' });
      const res = await t.operator.post('/api/admin/carriers/ameriship/services', {
        name: 'Ameriship Ground',
        price: 19.99,
        state_prices: { CA: 12.5, ny: 24.05 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          carrier_id: 'ameriship',
          id: 'ameriship_ground',
          name: 'Ameriship Ground',
          price: 19.99,
          state_prices: { CA: 12.5, NY: 24.05 },
          cold_chain_eligible: false,
          created_at: expect.stringMatching(ISO),
        },
        message: 'Service created',
      });
      const row = await t.ctx.db
        .selectFrom('shipping_services')
        .select('price_cents')
        .where('carrier_id', '=', 'ameriship')
        .where('id', '=', 'ameriship_ground')
        .executeTakeFirst();
      expect(row?.price_cents).toBe(1999);
      expect(await statePrices('ameriship', 'ameriship_ground')).toEqual([
        { state_code: 'CA', price_cents: 1250 },
        { state_code: 'NY', price_cents: 2405 },
      ]);
    });

    it('when a service is added, then partners are quoted its state price', async () => {
      await t.operator.post('/api/admin/carriers/ups/services', {
        id: 'ups_2nd_day_air',
        name: 'UPS 2nd Day Air®',
        price: 40,
        state_prices: { WA: 44.1 },
      });
      const clinic = await t.createClinic();
      const patientId = await insertTestPatient(t.ctx, clinic.clinicId, 'WA');
      const res = await t.partner(clinic.apiKey).get(`/api/external/carriers/ups/services?patientId=${patientId}`);
      expect(res.body.data).toContainEqual({
        id: 'ups_2nd_day_air',
        name: 'UPS 2nd Day Air®',
        totalCost: 44.1,
        originalCost: 44.1,
        cold_chain_eligible: false,
      });
    });

    it('when a free service is added (price 0), then it is accepted', async () => {
      const res = await t.operator.post('/api/admin/carriers/usps/services', {
        id: 'usps_pickup',
        name: 'Pharmacy pickup',
        price: 0,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.price).toBe(0);
    });

    it('when the service id is taken for that carrier, then 409 and its prices are untouched', async () => {
      const res = await t.operator.post('/api/admin/carriers/fedex/services', {
        id: 'fedex_ground',
        name: 'Dup',
        price: 1,
        state_prices: { AK: 1 },
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { id: 'already exists' } });
      expect(await statePrices('fedex', 'fedex_ground')).toEqual([
        { state_code: 'AK', price_cents: 5899 },
        { state_code: 'HI', price_cents: 5899 },
      ]);
    });

    it('when the same service id is used by another carrier, then it is allowed', async () => {
      const res = await t.operator.post('/api/admin/carriers/usps/services', {
        id: 'fedex_ground',
        name: 'Not really FedEx',
        price: 1,
      });
      expect(res.status).toBe(200);
    });

    it('when the carrier is unknown, then 404 Carrier not found and nothing is stored', async () => {
      const res = await t.operator.post('/api/admin/carriers/dhl/services', {
        name: 'DHL Express',
        price: 50,
        state_prices: { CA: 60 },
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Carrier not found' });
      const rows = await t.ctx.db.selectFrom('shipping_services').select('id').where('carrier_id', '=', 'dhl').execute();
      expect(rows).toEqual([]);
    });

    it.each([
      [{ name: 'S', price: 1.234 }, 'price', 'must have at most 2 decimal places'],
      [{ name: 'S', price: 5e-324 }, 'price', 'must have at most 2 decimal places'],
      [{ name: 'S', price: 12.3400000001 }, 'price', 'must have at most 2 decimal places'],
      [{ name: 'S', price: -1 }, 'price', 'must be at least 0'],
      [{ name: 'S', price: '12.50' }, 'price', 'must be a number'],
      [{ name: 'S', price: 100_000.01 }, 'price', 'must be at most 100000'],
      [{ name: 'S' }, 'price', 'is required'],
      [{ price: 5 }, 'name', 'is required'],
      [{ name: 'S', price: 5, state_prices: { ZZ: 5 } }, 'state_prices.ZZ', 'is not a two-letter US state code'],
      [{ name: 'S', price: 5, state_prices: { California: 5 } }, 'state_prices.California', 'is not a two-letter US state code'],
      [{ name: 'S', price: 5, state_prices: { CA: 5.555 } }, 'state_prices.CA', 'must have at most 2 decimal places'],
      [{ name: 'S', price: 5, state_prices: { CA: 1e-7 } }, 'state_prices.CA', 'must have at most 2 decimal places'],
      [{ name: 'S', price: 5, state_prices: { CA: 'five' } }, 'state_prices.CA', 'must be a number'],
      [{ name: 'S', price: 5, state_prices: { CA: 5, ca: 6 } }, 'state_prices.ca', 'repeats state CA'],
      [{ name: 'S', price: 5, state_prices: [5] }, 'state_prices', 'must be an object'],
      [{ name: 'S', price: 5, cost: 5 }, 'cost', 'is not a known field'],
    ])('when the service body is %j, then 400 naming %s', async (body, field, message) => {
      const res = await t.operator.post('/api/admin/carriers/usps/services', { id: 'usps_rejected', ...body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toEqual({ [field]: message });
      const rows = await t.ctx.db.selectFrom('shipping_services').select('id').where('id', '=', 'usps_rejected').execute();
      expect(rows).toEqual([]);
    });

    it('when a service is updated, then name, price and state prices change together', async () => {
      await t.operator.post('/api/admin/carriers/usps/services', {
        id: 'usps_ground_advantage',
        name: 'Ground Advantage',
        price: 8,
        state_prices: { AK: 15, HI: 15 },
      });
      const res = await t.operator.put('/api/admin/carriers/usps/services/usps_ground_advantage', {
        name: 'USPS Ground Advantage™',
        price: 8.45,
        state_prices: { PR: 11.2 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          carrier_id: 'usps',
          id: 'usps_ground_advantage',
          name: 'USPS Ground Advantage™',
          price: 8.45,
          state_prices: { PR: 11.2 },
          cold_chain_eligible: false,
          created_at: expect.stringMatching(ISO),
        },
        message: 'Service updated',
      });
      expect(await statePrices('usps', 'usps_ground_advantage')).toEqual([{ state_code: 'PR', price_cents: 1120 }]);
    });

    it('when only the price is updated, then the name and the state prices stay', async () => {
      const res = await t.operator.put('/api/admin/carriers/fedex/services/fedex_2day', { price: 47 });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ name: 'FedEx 2Day®', price: 47, state_prices: { AK: 74.5, HI: 74.5 } });
    });

    it('when state_prices is updated to {}, then every state price is removed', async () => {
      const res = await t.operator.put('/api/admin/carriers/ups/services/ups_ground', { state_prices: {} });
      expect(res.status).toBe(200);
      expect(res.body.data.state_prices).toEqual({});
      expect(await statePrices('ups', 'ups_ground')).toEqual([]);
    });

    it('when an update has a bad state price, then 400 and nothing changes (one transaction)', async () => {
      const res = await t.operator.put('/api/admin/carriers/fedex/services/fedex_ground', {
        price: 1,
        state_prices: { AK: 1, XX: 2 },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ 'state_prices.XX': 'is not a two-letter US state code' });
      const row = await t.ctx.db
        .selectFrom('shipping_services')
        .select('price_cents')
        .where('id', '=', 'fedex_ground')
        .where('carrier_id', '=', 'fedex')
        .executeTakeFirst();
      expect(row?.price_cents).toBe(3244);
      expect(await statePrices('fedex', 'fedex_ground')).toHaveLength(2);
    });

    it('when an update is empty, has a bad price or an unknown field, then 400', async () => {
      const empty = await t.operator.put('/api/admin/carriers/fedex/services/fedex_ground', {});
      expect(empty.status).toBe(400);
      expect(empty.body.error.details).toEqual({
        body: 'must change at least one of name, price, state_prices, cold_chain_eligible',
      });
      const price = await t.operator.put('/api/admin/carriers/fedex/services/fedex_ground', { price: 0.125 });
      expect(price.body.error.details).toEqual({ price: 'must have at most 2 decimal places' });
      const id = await t.operator.put('/api/admin/carriers/fedex/services/fedex_ground', { id: 'new_id' });
      expect(id.body.error.details).toEqual({ id: 'is not a known field' });
    });

    it('when a service is added cold-chain eligible, then the operator\u2019s list and the partner\u2019s services show it; without the field it is not', async () => {
      await t.operator.post('/api/admin/carriers', { id: 'coldline', name: 'Coldline' });
      const cold = await t.operator.post('/api/admin/carriers/coldline/services', {
        id: 'coldline_overnight',
        name: 'Coldline Overnight',
        price: 50,
        cold_chain_eligible: true,
      });
      expect(cold.status).toBe(200);
      expect(cold.body.data.cold_chain_eligible).toBe(true);
      const plain = await t.operator.post('/api/admin/carriers/coldline/services', {
        id: 'coldline_ground',
        name: 'Coldline Ground',
        price: 10,
      });
      expect(plain.body.data.cold_chain_eligible).toBe(false);

      const list = await t.operator.get('/api/admin/carriers');
      const coldline = list.body.data.carriers.find((c: { id: string }) => c.id === 'coldline');
      expect(coldline.services.map((s: { id: string; cold_chain_eligible: boolean }) => [s.id, s.cold_chain_eligible])).toEqual([
        ['coldline_ground', false],
        ['coldline_overnight', true],
      ]);
      const clinic = await t.createClinic();
      const patientId = await insertTestPatient(t.ctx, clinic.clinicId, 'CA');
      const partner = await t.partner(clinic.apiKey).get(`/api/external/carriers/coldline/services?patientId=${patientId}`);
      expect(partner.body.data).toEqual([
        { id: 'coldline_ground', name: 'Coldline Ground', totalCost: 10, originalCost: 10, cold_chain_eligible: false },
        { id: 'coldline_overnight', name: 'Coldline Overnight', totalCost: 50, originalCost: 50, cold_chain_eligible: true },
      ]);
    });

    it('when the operator sets cold_chain_eligible alone, then only it changes, is audited, and partners see it; setting it false takes it back', async () => {
      const on = await t.operator.put('/api/admin/carriers/ups/services/ups_next_day_air', { cold_chain_eligible: true });
      expect(on.status).toBe(200);
      expect(on.body.data).toMatchObject({
        id: 'ups_next_day_air',
        name: 'UPS Next Day Air®',
        price: 84.95,
        cold_chain_eligible: true,
      });
      const row = await t.ctx.db
        .selectFrom('shipping_services')
        .select('cold_chain_eligible')
        .where('carrier_id', '=', 'ups')
        .where('id', '=', 'ups_next_day_air')
        .executeTakeFirstOrThrow();
      expect(row.cold_chain_eligible).toBe(1);
      const audit = await t.ctx.db
        .selectFrom('audit_events')
        .select(['action', 'resource_id'])
        .where('resource_type', '=', 'shipping_service')
        .where('resource_id', '=', 'ups/ups_next_day_air')
        .execute();
      expect(audit).toContainEqual({ action: 'update', resource_id: 'ups/ups_next_day_air' });

      const clinic = await t.createClinic();
      const patientId = await insertTestPatient(t.ctx, clinic.clinicId, 'CA');
      const services = await t.partner(clinic.apiKey).get(`/api/external/carriers/ups/services?patientId=${patientId}`);
      const eligible = (services.body.data as { id: string; cold_chain_eligible: boolean }[]).filter(
        (s) => s.cold_chain_eligible,
      );
      expect(eligible.map((s) => s.id)).toEqual(['ups_next_day_air']);

      const off = await t.operator.put('/api/admin/carriers/ups/services/ups_next_day_air', { cold_chain_eligible: false });
      expect(off.body.data.cold_chain_eligible).toBe(false);
    });

    it('when cold_chain_eligible is not a boolean, then 400 naming it', async () => {
      const put = await t.operator.put('/api/admin/carriers/fedex/services/fedex_ground', { cold_chain_eligible: 'yes' });
      expect(put.status).toBe(400);
      expect(Object.keys(put.body.error.details)).toEqual(['cold_chain_eligible']);
      const post = await t.operator.post('/api/admin/carriers/fedex/services', {
        name: 'Cold',
        price: 1,
        cold_chain_eligible: 1,
      });
      expect(post.status).toBe(400);
      expect(Object.keys(post.body.error.details)).toEqual(['cold_chain_eligible']);
    });

    it('when the carrier or the service of an update is unknown, then 404', async () => {
      const carrier = await t.operator.put('/api/admin/carriers/dhl/services/dhl_express', { price: 1 });
      expect(carrier.status).toBe(404);
      expect(carrier.body.error.message).toBe('Carrier not found');
      const service = await t.operator.put('/api/admin/carriers/fedex/services/fedex_smartpost', { price: 1 });
      expect(service.status).toBe(404);
      expect(service.body.error.message).toBe('Service not found');
    });
  });
});
