import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/clinics/api-key.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(DIALECTS)('operator API for clinics, keys and formulary on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  const newClinic = async (body: Record<string, unknown> = { name: 'Operator Clinic' }): Promise<string> => {
    const res = await t.operator.post('/api/admin/clinics', body);
    expect(res.status).toBe(200);
    return res.body.data.clinic_id as string;
  };

  describe('clinics', () => {
    it('when a clinic is created, then data.clinic_id and the clinic come back and it is stored', async () => {
      const res = await t.operator.post('/api/admin/clinics', { name: '  Northside   Vet  ' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          clinic_id: expect.stringMatching(UUID),
          name: 'Northside   Vet',
          free_shipping: false,
          created_at: expect.stringMatching(ISO),
        },
        message: 'Clinic created',
      });
      const row = await t.ctx.db.selectFrom('clinics').selectAll().where('id', '=', res.body.data.clinic_id).executeTakeFirst();
      expect(row).toMatchObject({ name: 'Northside   Vet', free_shipping: 0 });
    });

    it('when a clinic is created with free_shipping, then it is stored as free shipping', async () => {
      const res = await t.operator.post('/api/admin/clinics', { name: 'Free Clinic', free_shipping: true });
      expect(res.body.data.free_shipping).toBe(true);
      const row = await t.ctx.db
        .selectFrom('clinics')
        .select('free_shipping')
        .where('id', '=', res.body.data.clinic_id)
        .executeTakeFirst();
      expect(row?.free_shipping).toBe(1);
    });

    it.each([
      [{}, { name: 'is required' }],
      [{ name: '   ' }, { name: 'must not be blank' }],
      [{ name: 'A'.repeat(201) }, { name: 'must be at most 200 characters' }],
      [{ name: 'Clinic', free_shipping: 'yes' }, { free_shipping: 'must be a boolean' }],
      [{ name: 'Clinic', clinic_name: 'x' }, { clinic_name: 'is not a known field' }],
    ])('when the body is %j, then 400 naming the field', async (body, details) => {
      const res = await t.operator.post('/api/admin/clinics', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toEqual(details);
    });

    it('when clinics are listed, then every clinic is there', async () => {
      const id = await newClinic({ name: 'Listed Clinic' });
      const res = await t.operator.get('/api/admin/clinics');
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Clinics');
      expect(res.body.data.clinics).toContainEqual({
        clinic_id: id,
        name: 'Listed Clinic',
        free_shipping: false,
        created_at: expect.stringMatching(ISO),
      });
    });

    it('when a clinic is fetched, then it comes back; an unknown one is 404; a malformed id is 400', async () => {
      const id = await newClinic({ name: 'Fetched Clinic' });
      const res = await t.operator.get(`/api/admin/clinics/${id}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ clinic_id: id, name: 'Fetched Clinic' });
      const missing = await t.operator.get(`/api/admin/clinics/${randomUUID()}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Clinic not found' });
      const malformed = await t.operator.get('/api/admin/clinics/not-a-uuid');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details).toEqual({ clinicId: 'must be a UUID' });
    });

    it('when free shipping is turned on and off, then the clinic and the database follow', async () => {
      const id = await newClinic();
      const on = await t.operator.put(`/api/admin/clinics/${id}/shipping`, { free_shipping: true });
      expect(on.status).toBe(200);
      expect(on.body).toMatchObject({
        success: true,
        data: { clinic_id: id, free_shipping: true },
        message: 'Free shipping enabled',
      });
      let row = await t.ctx.db.selectFrom('clinics').select('free_shipping').where('id', '=', id).executeTakeFirst();
      expect(row?.free_shipping).toBe(1);
      const off = await t.operator.put(`/api/admin/clinics/${id}/shipping`, { free_shipping: false });
      expect(off.body.data.free_shipping).toBe(false);
      row = await t.ctx.db.selectFrom('clinics').select('free_shipping').where('id', '=', id).executeTakeFirst();
      expect(row?.free_shipping).toBe(0);
    });

    it('when free shipping is set on an unknown clinic or without a boolean, then 404 or 400', async () => {
      const missing = await t.operator.put(`/api/admin/clinics/${randomUUID()}/shipping`, { free_shipping: true });
      expect(missing.status).toBe(404);
      expect(missing.body.error.message).toBe('Clinic not found');
      const id = await newClinic();
      const bad = await t.operator.put(`/api/admin/clinics/${id}/shipping`, { free_shipping: 'true' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual({ free_shipping: 'must be a boolean' });
      const empty = await t.operator.put(`/api/admin/clinics/${id}/shipping`, {});
      expect(empty.body.error.details).toEqual({ free_shipping: 'is required' });
    });

    it('when free shipping is turned on, then the partner\u2019s next price list is free', async () => {
      const clinic = await t.createClinic();
      const patientId = randomUUID();
      await t.ctx.db
        .insertInto('patients')
        .values({
          id: patientId,
          clinic_id: clinic.clinicId,
          practitioner_id: null,
          first_name: 'Test',
          middle_name: null,
          last_name: 'Patient',
          gender: 'other',
          dob: '1990-01-01',
          species: 'canine',
          status: 'active',
          contacts: '[]',
          address_line_1: '1 Road',
          address_line_2: null,
          city: 'Town',
          state: 'OR',
          postal_code: '97201',
          created_at: new Date().toISOString(),
        })
        .execute();
      const url = `/api/external/carriers/usps/services?patientId=${patientId}`;
      expect((await t.partner(clinic.apiKey).get(url)).body.isFreeShipment).toBe(false);
      await t.operator.put(`/api/admin/clinics/${clinic.clinicId}/shipping`, { free_shipping: true });
      const after = await t.partner(clinic.apiKey).get(url);
      expect(after.body).toMatchObject({ isFreeShipment: true, freeShipmentType: 'clinic_specific' });
      expect(after.body.data[0]).toEqual({
        id: 'usps_priority',
        name: 'USPS Priority Mail®',
        totalCost: 0,
        originalCost: 12.5,
        cold_chain_eligible: false,
      });
    });
  });

  describe('API keys', () => {
    it('when a key is issued without a body, then it is a key of the server\u2019s environment, shown once and stored as a hash', async () => {
      const clinicId = await newClinic();
      const res = await t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          api_key_id: expect.stringMatching(UUID),
          api_key: expect.stringMatching(/^dev_[A-Za-z0-9_-]{43}$/),
          clinic_id: clinicId,
          environment: 'development',
          key_prefix: expect.stringMatching(/^dev_/),
          key_last4: expect.stringMatching(/^[A-Za-z0-9_-]{4}$/),
          scopes: null,
          created_at: expect.stringMatching(ISO),
          expires_at: null,
          last_used_at: null,
        },
        message: 'API key issued: store it now, it is not shown again',
      });
      const row = await t.ctx.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', res.body.data.api_key_id)
        .executeTakeFirstOrThrow();
      expect(row.key_hash).toBe(hashApiKey(res.body.data.api_key));
      expect(JSON.stringify(row)).not.toContain(res.body.data.api_key);
    });

    it('when a key is issued with {} as body, then it defaults to the server\u2019s environment', async () => {
      const clinicId = await newClinic();
      const res = await t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`, {});
      expect(res.status).toBe(200);
      expect(res.body.data.environment).toBe('development');
    });

    it('when the issued key is used, then the partner API accepts it for that clinic', async () => {
      const clinicId = await newClinic();
      const issued = await t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`, { environment: 'development' });
      const res = await t.partner(issued.body.data.api_key).get('/api/external/carriers');
      expect(res.status).toBe(200);
    });

    it('when a production key is issued, then a development server refuses it with 401', async () => {
      const clinicId = await newClinic();
      const issued = await t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`, { environment: 'production' });
      expect(issued.status).toBe(200);
      expect(issued.body.data.environment).toBe('production');
      expect(issued.body.data.api_key).toMatch(/^prod_/);
      const res = await t.partner(issued.body.data.api_key).get('/api/external/carriers');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.body.error.message).toMatch(/^Unauthorized/);
    });

    it('when keys are issued for an unknown clinic or an unknown environment, then 404 or 400', async () => {
      const missing = await t.operator.post(`/api/admin/clinics/${randomUUID()}/api-keys`, {});
      expect(missing.status).toBe(404);
      expect(missing.body.error.message).toBe('Clinic not found');
      const clinicId = await newClinic();
      const bad = await t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`, { environment: 'staging' });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.error.details)).toEqual(['environment']);
      const count = await t.ctx.db.selectFrom('api_keys').select('id').where('clinic_id', '=', clinicId).execute();
      expect(count).toEqual([]);
    });

    it('when keys are listed, then only prefixes and last four characters are shown, never the key', async () => {
      const clinicId = await newClinic();
      const issued = await t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`, {});
      const res = await t.operator.get(`/api/admin/clinics/${clinicId}/api-keys`);
      expect(res.status).toBe(200);
      expect(res.body.data.api_keys).toEqual([
        {
          api_key_id: issued.body.data.api_key_id,
          environment: 'development',
          key_prefix: issued.body.data.key_prefix,
          key_last4: issued.body.data.api_key.slice(-4),
          scopes: null,
          created_at: expect.stringMatching(ISO),
          expires_at: null,
          last_used_at: null,
          revoked_at: null,
        },
      ]);
      expect(JSON.stringify(res.body)).not.toContain(issued.body.data.api_key);
      const missing = await t.operator.get(`/api/admin/clinics/${randomUUID()}/api-keys`);
      expect(missing.status).toBe(404);
    });

    it('when a key is revoked, then the next partner request with it is 401 and the listing shows revoked_at', async () => {
      const clinic = await t.createClinic();
      expect((await t.partner(clinic.apiKey).get('/api/external/carriers')).status).toBe(200);
      const res = await t.operator.delete(`/api/admin/api-keys/${clinic.apiKeyId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { api_key_id: clinic.apiKeyId, revoked_at: expect.stringMatching(ISO) },
        message: 'API key revoked',
      });
      const next = await t.partner(clinic.apiKey).get('/api/external/carriers');
      expect(next.status).toBe(401);
      expect(next.body.error.message).toMatch(/^Unauthorized/);
      const listing = await t.operator.get(`/api/admin/clinics/${clinic.clinicId}/api-keys`);
      expect(listing.body.data.api_keys[0].revoked_at).toBe(res.body.data.revoked_at);
    });

    it('when a revoked key is revoked again, then 200 with the first revocation time', async () => {
      const clinic = await t.createClinic();
      const first = await t.operator.delete(`/api/admin/api-keys/${clinic.apiKeyId}`);
      const second = await t.operator.delete(`/api/admin/api-keys/${clinic.apiKeyId}`);
      expect(second.status).toBe(200);
      expect(second.body.data.revoked_at).toBe(first.body.data.revoked_at);
    });

    it('when an unknown or malformed key id is revoked, then 404 or 400', async () => {
      const missing = await t.operator.delete(`/api/admin/api-keys/${randomUUID()}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'API key not found' });
      const malformed = await t.operator.delete('/api/admin/api-keys/dev_abc');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details).toEqual({ apiKeyId: 'must be a UUID' });
    });
  });

  describe('formulary', () => {
    it('when a medication is added, then data.medication_id comes back and it is listed', async () => {
      const clinicId = await newClinic();
      const res = await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, {
        name: 'Semaglutide',
        strength: '2.5 mg/mL',
        dosage_form: 'injectable solution',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          medication_id: expect.stringMatching(UUID),
          clinic_id: clinicId,
          name: 'Semaglutide',
          strength: '2.5 mg/mL',
          dosage_form: 'injectable solution',
          created_at: expect.stringMatching(ISO),
          ingredients: null,
          preparation: null,
          bud_category: null,
          storage: null,
          controlled_schedule: null,
          beyond_use_days: null,
          restricted_states: null,
          sterile_condition: null,
          dispense_unit: 'each',
          dispense_unit_defaulted: true,
          therapeutic_class: null,
          formula_version: null,
        },
        message: 'Medication added to the formulary',
      });
      const list = await t.operator.get(`/api/admin/clinics/${clinicId}/medications`);
      expect(list.status).toBe(200);
      expect(list.body.data.medications).toEqual([res.body.data]);
    });

    it('when a medication without strength or form is added, then they are null', async () => {
      const clinicId = await newClinic();
      const res = await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: 'Gabapentin' });
      expect(res.body.data).toMatchObject({ name: 'Gabapentin', strength: null, dosage_form: null });
    });

    it('when the same name is added again in another case, then 409 CONFLICT and one row remains', async () => {
      const clinicId = await newClinic();
      await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: 'Tirzepatide' });
      const res = await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: '  TIRZEPATIDE ' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      const rows = await t.ctx.db.selectFrom('medications').select('id').where('clinic_id', '=', clinicId).execute();
      expect(rows).toHaveLength(1);
    });

    it.each([
      [{}, { name: 'is required' }],
      [{ name: '' }, { name: 'must not be empty' }],
      [{ name: 'Progesterone', strength: 100 }, { strength: 'must be a string' }],
      [{ name: 'Progesterone', dose: '100 mg' }, { dose: 'is not a known field' }],
    ])('when the medication body is %j, then 400 naming the field', async (body, details) => {
      const clinicId = await newClinic();
      const res = await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual(details);
    });

    it('when the clinic is unknown, then adding, listing and removing are 404 Clinic not found', async () => {
      const clinicId = randomUUID();
      for (const res of [
        await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: 'Methimazole' }),
        await t.operator.get(`/api/admin/clinics/${clinicId}/medications`),
        await t.operator.delete(`/api/admin/clinics/${clinicId}/medications/${randomUUID()}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.error.message).toBe('Clinic not found');
      }
    });

    it('when a medication is removed, then it is gone; removing it again is 404 Medication not found', async () => {
      const clinicId = await newClinic();
      const added = await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: 'Progesterone' });
      const id = added.body.data.medication_id as string;
      const res = await t.operator.delete(`/api/admin/clinics/${clinicId}/medications/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { medication_id: id }, message: 'Medication removed from the formulary' });
      expect(await t.ctx.db.selectFrom('medications').select('id').where('id', '=', id).execute()).toEqual([]);
      const again = await t.operator.delete(`/api/admin/clinics/${clinicId}/medications/${id}`);
      expect(again.status).toBe(404);
      expect(again.body.error.message).toBe('Medication not found');
    });

    it('when a medication of another clinic is removed through this clinic, then 404 and it stays', async () => {
      const owner = await newClinic();
      const other = await newClinic();
      const added = await t.operator.post(`/api/admin/clinics/${owner}/medications`, { name: 'Progesterone' });
      const res = await t.operator.delete(`/api/admin/clinics/${other}/medications/${added.body.data.medication_id}`);
      expect(res.status).toBe(404);
      const rows = await t.ctx.db.selectFrom('medications').select('id').where('clinic_id', '=', owner).execute();
      expect(rows).toHaveLength(1);
    });
  });
});
