import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPractitioner } from '../helpers/factories.js';
import { practitionerBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** The prescriber's credentials (issue 30, item 8; docs/practitioners-and-patients.md#credentials), over HTTP. */
const TX_LICENSE = { state_code: 'tx', number: ' A123456 ', expires_on: '2030-06-30' };

describe.each(DIALECTS)('a practitioner\u2019s credentials on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinic = await t.createClinic();
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  const post = (overrides: Record<string, unknown>) =>
    t.partner(clinic.apiKey).post('/api/external/practitioner', practitionerBody(clinic.clinicId, overrides));
  const read = async (id: string) => (await t.partner(clinic.apiKey).get(`/api/external/practitioner/${id}`)).body.data;
  const put = (id: string, body: unknown, key = clinic.apiKey) =>
    t.partner(key).put(`/api/external/practitioner/${id}/credentials`, body);
  const count = async () => (await t.ctx.db.selectFrom('practitioners').select('id').execute()).length;

  describe('POST /api/external/practitioner', () => {
    it('when a valid DEA number (lower case) and licences are given, then 200 and the read shows them upper case', async () => {
      const res = await post({ dea_number: 'bl1234563', licenses: [TX_LICENSE] });
      expect(res.status).toBe(200);
      const record = await read(res.body.data.practitioner_id);
      expect(record.dea_number).toBe('BL1234563');
      expect(record.licenses).toEqual([{ state_code: 'TX', number: 'A123456', expires_on: '2030-06-30' }]);
    });

    it('when no credentials are given, then the read shows a null DEA number and no licences', async () => {
      const id = await createPractitioner(t, clinic);
      expect(await read(id)).toMatchObject({ dea_number: null, licenses: [] });
    });

    it('when the DEA number has a bad check digit, then 400 naming dea_number and nothing is stored', async () => {
      const before = await count();
      const res = await post({ dea_number: 'BL1234560' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.dea_number).toContain('check digit');
      expect(await count()).toBe(before);
    });

    it('when the DEA number starts with a letter that is no registrant type, then 400 naming dea_number', async () => {
      const res = await post({ dea_number: 'ZL1234563' });
      expect(res.status).toBe(400);
      expect(res.body.error.details.dea_number).toContain('registrant type');
    });

    it('when the DEA number is not two letters and seven digits, then 400 naming dea_number', async () => {
      const res = await post({ dea_number: 'B91234563' });
      expect(res.status).toBe(400);
      expect(res.body.error.details.dea_number).toBe('must be two letters and seven digits, e.g. AB1234563');
    });

    it('when a licence names an unknown state, then 400 naming licenses[0].state_code and nothing is stored', async () => {
      const before = await count();
      const res = await post({ licenses: [{ ...TX_LICENSE, state_code: 'XX' }] });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(['licenses[0].state_code']);
      expect(await count()).toBe(before);
    });

    it.each([
      ['an impossible expiry date', 'licenses[0].expires_on', [{ ...TX_LICENSE, expires_on: '2030-02-30' }]],
      ['a blank licence number', 'licenses[0].number', [{ ...TX_LICENSE, number: '' }]],
      ['an unknown licence field', 'licenses[0].issued_on', [{ ...TX_LICENSE, issued_on: '2020-01-01' }]],
      ['61 licences', 'licenses', Array.from({ length: 61 }, () => TX_LICENSE)],
    ])('when the body has %s, then 400 naming %s', async (_what, field, licenses) => {
      const res = await post({ licenses });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toContain(field);
    });
  });

  describe('PUT /api/external/practitioner/{id}/credentials', () => {
    it('when credentials are put, then 200 with the practitioner as stored, the read shows them, and the change is audited', async () => {
      const id = await createPractitioner(t, clinic);
      const res = await put(id, {
        dea_number: 'BL1234563',
        licenses: [TX_LICENSE, { state_code: 'CA', number: 'G98765', expires_on: '2026-01-31' }],
      });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Practitioner credentials updated successfully');
      const licenses = [
        { state_code: 'TX', number: 'A123456', expires_on: '2030-06-30' },
        { state_code: 'CA', number: 'G98765', expires_on: '2026-01-31' },
      ];
      expect(res.body.data).toMatchObject({ practitioner_id: id, first_name: 'Ada', dea_number: 'BL1234563', licenses });
      expect(await read(id)).toMatchObject({ dea_number: 'BL1234563', licenses });
      const audits = await t.ctx.db
        .selectFrom('audit_events')
        .select(['action', 'resource_type'])
        .where('resource_id', '=', id)
        .where('action', '=', 'update')
        .execute();
      expect(audits).toEqual([{ action: 'update', resource_type: 'practitioner' }]);
    });

    it('when null and an empty list are put, then the credentials are removed', async () => {
      const id = await createPractitioner(t, clinic, { overrides: { dea_number: 'BL1234563', licenses: [TX_LICENSE] } });
      const res = await put(id, { dea_number: null, licenses: [] });
      expect(res.status).toBe(200);
      expect(await read(id)).toMatchObject({ dea_number: null, licenses: [] });
    });

    it('when the DEA number has a bad check digit, then 400 naming dea_number and the stored credentials are unchanged', async () => {
      const id = await createPractitioner(t, clinic, { overrides: { dea_number: 'BL1234563' } });
      const res = await put(id, { dea_number: 'BL1234564', licenses: [] });
      expect(res.status).toBe(400);
      expect(res.body.error.details.dea_number).toContain('check digit');
      expect((await read(id)).dea_number).toBe('BL1234563');
    });

    it('when a field is missing, then 400 naming it', async () => {
      const id = await createPractitioner(t, clinic);
      const res = await put(id, { dea_number: 'BL1234563' });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toHaveProperty('licenses');
    });

    it('when another clinic\u2019s or an unknown practitioner is named, then 404 and nothing changes', async () => {
      const id = await createPractitioner(t, clinic);
      const res = await put(id, { dea_number: 'BL1234563', licenses: [] }, other.apiKey);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe('Practitioner not found');
      expect((await read(id)).dea_number).toBeNull();
      const unknown = await put('00000000-0000-4000-8000-000000000000', { dea_number: null, licenses: [] });
      expect(unknown.status).toBe(404);
    });
  });
});
