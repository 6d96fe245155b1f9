import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderSetup, type OrderSetup } from '../helpers/factories.js';
import { practitionerBody } from '../helpers/fixtures.js';
import { portalRequest, portalSignIn } from '../helpers/portal.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Issue 22: a query parameter written as another route (or an older example) spells it gets the same
 * "did you mean" hint as a body field, instead of a bare "is required" or silence.
 */
describe.each(DIALECTS)('"did you mean" for query parameters and fields on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  const get = (url: string) => t.partner(setup.clinic.apiKey).get(url);
  const services = '/api/external/carriers/fedex/services';

  it('when the carrier services are asked with patient_id, then 400 names it with the hint patientId', async () => {
    const res = await get(`${services}?patient_id=${setup.patientId}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual({
      patient_id: 'is not a known query parameter; did you mean patientId?',
      patientId: 'is required',
    });
  });

  it('when the carrier services are asked with PatientID, then 400 names it with the hint patientId', async () => {
    const res = await get(`${services}?PatientID=${setup.patientId}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.PatientID).toBe('is not a known query parameter; did you mean patientId?');
  });

  it('when the carrier services get patientId and other parameters, then they are ignored as before (near misses included)', async () => {
    const res = await get(`${services}?patientId=${setup.patientId}&patient_id=${setup.patientId}&_=1700000000`);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
  });

  it('when the orders are listed with patientId, then 400 names it with the hint patient_id', async () => {
    const res = await get(`/api/external/medication-orders?patientId=${setup.patientId}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ patientId: 'is not a known query parameter; did you mean patient_id?' });
  });

  it('when the deliveries are listed with webhookId, then 400 names it with the hint webhook_id', async () => {
    const res = await get(`/api/external/webhook/deliveries?webhookId=${setup.patientId}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ webhookId: 'is not a known query parameter; did you mean webhook_id?' });
  });

  it('when the operator\u2019s order list gets clinicId, then 400 names it with the hint clinic_id instead of listing every clinic', async () => {
    const res = await t.operator.get(`/api/admin/medication-requests?clinicId=${setup.clinic.clinicId}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ clinicId: 'is not a known query parameter; did you mean clinic_id?' });
  });

  it('when a list gets a parameter like none it knows, then 400 names it without a hint', async () => {
    const res = await get('/api/external/medications?page=2');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ page: 'is not a known query parameter' });
  });

  it('when a body field differs from a known one only by case and underscores, then 400 names it with the hint', async () => {
    const body = practitionerBody(setup.clinic.clinicId, { first_name: undefined, firstName: 'Ada' });
    const res = await t.partner(setup.clinic.apiKey).post('/api/external/practitioner', body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      firstName: 'is not a known field; did you mean first_name?',
      first_name: 'is required',
    });
  });

  it.each([
    ['/api/portal/deliveries?webhookId=x', { webhookId: 'is not a known query parameter; did you mean webhook_id?' }],
    ['/api/portal/requests?requestId=x', { requestId: 'is not a known query parameter; did you mean request_id?' }],
    ['/api/portal/sandbox/orders?page=2', { page: 'is not a known query parameter' }],
  ])('when a portal list gets %s, then 400 names the parameter (with a hint when one is near)', async (url, details) => {
    const { headers } = await portalSignIn(t, setup.clinic.clinicId, 'viewer');
    const res = await portalRequest(t, headers, 'GET', url);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(details);
  });

  it('when a portal body field is written as the partner API spells it, then 400 names it with the portal\u2019s name', async () => {
    const { headers } = await portalSignIn(t, setup.clinic.clinicId, 'developer');
    const res = await portalRequest(t, headers, 'POST', '/api/portal/webhooks', {
      webhook_url: 'https://partner.example.com/hooks',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ webhook_url: 'is not a known field; did you mean url?', url: 'is required' });
  });
});
