import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addService, createCarrier } from '../../src/shipping/catalogue.service.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { insertTestPatient } from './shipping-fixtures.js';

describe.each(DIALECTS)('partner carrier endpoints on %s', (dialect) => {
  let t: TestApp;
  let paying: TestClinic;
  let free: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    paying = await t.createClinic({ name: 'Paying Clinic' });
    free = await t.createClinic({ name: 'Free Shipping Clinic', freeShipping: true });
  });
  afterAll(async () => t.close());

  describe('GET /api/external/carriers', () => {
    it('when a partner lists carriers, then it gets the default carriers in the spec\u2019s exact shape', async () => {
      const res = await t.partner(paying.apiKey).get('/api/external/carriers');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          carriers: [
            { id: 'fedex', name: 'FedEx' },
            { id: 'ups', name: 'UPS' },
            { id: 'usps', name: 'USPS' },
          ],
        },
      });
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    });

    it('when the key is missing, then 401 with a message starting with Unauthorized', async () => {
      const res = await t.request('GET', '/api/external/carriers', { headers: { accept: 'application/json' } });
      expect(res.status).toBe(401);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.body.error.message).toMatch(/^Unauthorized/);
    });

    it('when the operator adds a carrier, then partners see it next', async () => {
      const other = await TestApp.start({ dialect });
      try {
        const clinic = await other.createClinic();
        await createCarrier(other.ctx, { name: 'Ameriship' }, null);
        const res = await other.partner(clinic.apiKey).get('/api/external/carriers');
        expect(res.body.data.carriers).toContainEqual({ id: 'ameriship', name: 'Ameriship' });
      } finally {
        await other.close();
      }
    });
  });

  describe('GET /api/external/carriers/{carrierId}/services', () => {
    it('when the patient lives in a state without its own prices, then the base prices apply in dollars', async () => {
      const patientId = await insertTestPatient(t.ctx, paying.clinicId, 'CA');
      const res = await t.partner(paying.apiKey).get(`/api/external/carriers/fedex/services?patientId=${patientId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: [
          { id: 'fedex_ground', name: 'FedEx Ground®', totalCost: 32.44, originalCost: 32.44, cold_chain_eligible: false },
          { id: 'fedex_2day', name: 'FedEx 2Day®', totalCost: 45.95, originalCost: 45.95, cold_chain_eligible: false },
          {
            id: 'fedex_priority_overnight',
            name: 'FedEx Priority Overnight®',
            totalCost: 89.5,
            originalCost: 89.5,
            cold_chain_eligible: false,
          },
        ],
        isFreeShipment: false,
        freeShipmentType: null,
        patientState: 'California',
        licensed: true,
      });
    });

    it('when the patient\u2019s state has its own price, then it overrides the base price', async () => {
      const patientId = await insertTestPatient(t.ctx, paying.clinicId, 'AK');
      const res = await t.partner(paying.apiKey).get(`/api/external/carriers/fedex/services?patientId=${patientId}`);
      expect(res.status).toBe(200);
      expect(res.body.patientState).toBe('Alaska');
      expect(res.body.data).toEqual([
        { id: 'fedex_ground', name: 'FedEx Ground®', totalCost: 58.99, originalCost: 58.99, cold_chain_eligible: false },
        { id: 'fedex_2day', name: 'FedEx 2Day®', totalCost: 74.5, originalCost: 74.5, cold_chain_eligible: false },
        // No Alaska price for this one: the base price.
        {
          id: 'fedex_priority_overnight',
          name: 'FedEx Priority Overnight®',
          totalCost: 89.5,
          originalCost: 89.5,
          cold_chain_eligible: false,
        },
      ]);
    });

    it('when the clinic has free shipping, then totalCost is 0, originalCost keeps the price and the type is clinic_specific', async () => {
      const patientId = await insertTestPatient(t.ctx, free.clinicId, 'HI');
      const res = await t.partner(free.apiKey).get(`/api/external/carriers/ups/services?patientId=${patientId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: [
          { id: 'ups_ground', name: 'UPS® Ground', totalCost: 0, originalCost: 54.99, cold_chain_eligible: false },
          { id: 'ups_next_day_air', name: 'UPS Next Day Air®', totalCost: 0, originalCost: 84.95, cold_chain_eligible: false },
        ],
        isFreeShipment: true,
        freeShipmentType: 'clinic_specific',
        patientState: 'Hawaii',
        licensed: true,
      });
    });

    it('when the patient lives in DC or a territory, then patientState is its full name', async () => {
      const dc = await insertTestPatient(t.ctx, paying.clinicId, 'DC');
      const pr = await t.partner(paying.apiKey).get(`/api/external/carriers/usps/services?patientId=${dc}`);
      expect(pr.body.patientState).toBe('District of Columbia');
      const guam = await insertTestPatient(t.ctx, paying.clinicId, 'GU');
      const gu = await t.partner(paying.apiKey).get(`/api/external/carriers/usps/services?patientId=${guam}`);
      expect(gu.body.patientState).toBe('Guam');
    });

    it('when the operator adds a service with a state price, then the partner gets that price for patients in that state only', async () => {
      const other = await TestApp.start({ dialect });
      try {
        const clinic = await other.createClinic();
        await createCarrier(other.ctx, { id: 'se-3818360', name: 'Stamps.com' }, null);
        await addService(
          other.ctx,
          'se-3818360',
          {
            id: 'usps_first_class',
            name: 'First-Class',
            price: 7.15,
            state_prices: { NY: 9.05 },
          },
          null,
        );
        const ny = await insertTestPatient(other.ctx, clinic.clinicId, 'NY');
        const tx = await insertTestPatient(other.ctx, clinic.clinicId, 'TX');
        const inNy = await other.partner(clinic.apiKey).get(`/api/external/carriers/se-3818360/services?patientId=${ny}`);
        const inTx = await other.partner(clinic.apiKey).get(`/api/external/carriers/se-3818360/services?patientId=${tx}`);
        expect(inNy.body.data).toEqual([
          { id: 'usps_first_class', name: 'First-Class', totalCost: 9.05, originalCost: 9.05, cold_chain_eligible: false },
        ]);
        expect(inTx.body.data).toEqual([
          { id: 'usps_first_class', name: 'First-Class', totalCost: 7.15, originalCost: 7.15, cold_chain_eligible: false },
        ]);
      } finally {
        await other.close();
      }
    });

    it('when the carrier has no services, then data is an empty array', async () => {
      const other = await TestApp.start({ dialect });
      try {
        const clinic = await other.createClinic();
        await createCarrier(other.ctx, { name: 'Ameriship' }, null);
        const patientId = await insertTestPatient(other.ctx, clinic.clinicId, 'TX');
        const res = await other.partner(clinic.apiKey).get(`/api/external/carriers/ameriship/services?patientId=${patientId}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          success: true,
          data: [],
          isFreeShipment: false,
          freeShipmentType: null,
          patientState: 'Texas',
          licensed: true,
        });
      } finally {
        await other.close();
      }
    });

    it('when other query parameters are sent beside patientId, then they are ignored', async () => {
      const patientId = await insertTestPatient(t.ctx, paying.clinicId, 'CA');
      const res = await t.partner(paying.apiKey).get(`/api/external/carriers/usps/services?patientId=${patientId}&_=123`);
      expect(res.status).toBe(200);
      expect(res.body.patientState).toBe('California');
    });

    it('when patientId is missing, then 400 naming patientId', async () => {
      const res = await t.partner(paying.apiKey).get('/api/external/carriers/fedex/services');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toEqual({ patientId: 'is required' });
    });

    it('when patientId is not a UUID, then 400 naming patientId', async () => {
      const res = await t.partner(paying.apiKey).get('/api/external/carriers/fedex/services?patientId=42');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toEqual({ patientId: 'must be a UUID' });
    });

    it('when the carrier is unknown, then 404 Carrier not found', async () => {
      const patientId = await insertTestPatient(t.ctx, paying.clinicId, 'CA');
      const res = await t.partner(paying.apiKey).get(`/api/external/carriers/no-such-carrier/services?patientId=${patientId}`);
      expect(res.status).toBe(404);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Carrier not found' });
    });

    it('when the patient does not exist, then 404 Patient not found', async () => {
      const res = await t.partner(paying.apiKey).get(`/api/external/carriers/fedex/services?patientId=${randomUUID()}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Patient not found' });
    });

    it('when the patient belongs to another clinic, then 404 Patient not found, as if it did not exist', async () => {
      const foreign = await insertTestPatient(t.ctx, free.clinicId, 'CA');
      const res = await t.partner(paying.apiKey).get(`/api/external/carriers/fedex/services?patientId=${foreign}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Patient not found' });
    });

    it('when the patient has no address, then 400 naming the patient\u2019s address', async () => {
      const patientId = await insertTestPatient(t.ctx, paying.clinicId, null);
      const res = await t.partner(paying.apiKey).get(`/api/external/carriers/fedex/services?patientId=${patientId}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/no shipping address/);
      expect(res.body.error.details).toEqual({ 'patient.addresses': 'the patient has no address with a US state' });
    });

    it('when the key is revoked, then 401', async () => {
      const clinic = await t.createClinic();
      const patientId = await insertTestPatient(t.ctx, clinic.clinicId, 'CA');
      await t.operator.delete(`/api/admin/api-keys/${clinic.apiKeyId}`);
      const res = await t.partner(clinic.apiKey).get(`/api/external/carriers/fedex/services?patientId=${patientId}`);
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/^Unauthorized/);
    });
  });

  describe('OpenAPI', () => {
    it('when the document is generated, then both carrier endpoints are listed with their responses and errors', async () => {
      const res = await t.request('GET', '/openapi.json');
      const services = res.body.paths['/api/external/carriers/{carrierId}/services'].get;
      expect(Object.keys(services.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '429', '500']));
      expect(services.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining(['carrierId', 'patientId']),
      );
      expect(services.responses['200'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/CarrierServiceListResponse',
      );
      const schema = res.body.components.schemas.CarrierServiceListResponse;
      expect(Object.keys(schema.properties)).toEqual([
        'success',
        'data',
        'isFreeShipment',
        'freeShipmentType',
        'patientState',
        'licensed',
      ]);
      expect(Object.keys(res.body.paths['/api/external/carriers'].get.responses)).toEqual(
        expect.arrayContaining(['200', '401', '429']),
      );
    });
  });
});
