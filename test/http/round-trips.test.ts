import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderSetup, itemBody, orderBody, type OrderSetup } from '../helpers/factories.js';
import { practitionerBody } from '../helpers/fixtures.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Issue 28, item 6: errors that save a partner a round trip. Each answer keeps its code and envelope
 * and says, in the same answer, what a new user had to find out by a second request.
 */
describe.each(DIALECTS)('errors that save a round trip on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const post = (url: string, body: unknown) => t.partner(setup.clinic.apiKey).post(url, body);

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when an order breaks its schema and names a medication outside the formulary, then one 400 names both', async () => {
    const res = await post(
      '/api/external/medication-order',
      orderBody(setup, { medication_requests: [itemBody({ medication: 'Aspirinx', days_supply: 400 }), itemBody()] }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual({
      'medication_requests[0].days_supply': 'must be a whole number of days from 1 to 365',
      'medication_requests[0].medication': 'is not in the clinic\u2019s formulary; see GET /api/external/medications',
    });
    expect(res.body.error.message).toContain('Not in the clinic\u2019s formulary: Aspirinx');
  });

  it('when a refused order\u2019s medication holds a NUL or a lone surrogate, then the 400 names it as text and nothing is looked up', async () => {
    const res = await post(
      '/api/external/medication-order',
      orderBody(setup, {
        medication_requests: [
          itemBody({ medication: 'Sema\u0000glutide', days_supply: 400 }),
          itemBody({ medication: 'Aspirin\ud800' }),
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      'medication_requests[0].medication': 'must not contain control characters or invalid Unicode',
      'medication_requests[0].days_supply': 'must be a whole number of days from 1 to 365',
      'medication_requests[1].medication': 'must not contain control characters or invalid Unicode',
    });
  });

  it('when an order names an unknown patient, an unknown medication and an unknown carrier, then the 404 names all three', async () => {
    const res = await post(
      '/api/external/medication-order',
      orderBody(setup, {
        patient_id: randomUUID(),
        carrier_id: 'nowhere',
        medication_requests: [itemBody({ medication: 'Aspirinx' })],
      }),
    );
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.body.error.details).toEqual({
      patient_id: 'no patient with this id in your clinic',
      'medication_requests[0].medication': 'is not in the clinic\u2019s formulary; see GET /api/external/medications',
      carrier_id: 'is not a known carrier; see GET /api/external/carriers',
    });
    expect(res.body.error.message).toMatch(/^Patient not found; /);
  });

  it('when a formulary miss is refused, then its detail points to GET /api/external/medications', async () => {
    const res = await post(
      '/api/external/medication-order',
      orderBody(setup, { medication_requests: [itemBody({ medication: 'Aspirinx' })] }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      'medication_requests[0].medication': 'is not in the clinic\u2019s formulary; see GET /api/external/medications',
    });
  });

  it('when a field from an older example is sent, then its "did you mean" hint comes first, in details and message', async () => {
    const res = await post('/api/external/practitioner', {
      ...practitionerBody(setup.clinic.clinicId, { npi: undefined }),
      npi_number: '1234567893',
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)[0]).toBe('npi_number');
    expect(res.body.error.message).toMatch(/^Validation failed: npi_number is not a known field; did you mean npi\?/);
  });

  it('when an API key is sent as Authorization: Bearer, then the 401 says it goes in x-api-key', async () => {
    const res = await t.request('GET', '/api/external/carriers', {
      headers: { authorization: `Bearer ${setup.clinic.apiKey}`, accept: 'application/json' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.body.error.message).toBe(
      'Unauthorized: invalid access token; an API key (dev_… or prod_…) goes in the x-api-key header, not Authorization: Bearer',
    );
  });

  it('when an unknown route under /api/external/ is asked, then the 404 suggests the nearest route', async () => {
    const carrier = await t.partner(setup.clinic.apiKey).get('/api/external/carrier');
    expect(carrier.status).toBe(404);
    expect(carrier.body.error.message).toBe(
      'Route GET /api/external/carrier not found; did you mean GET /api/external/carriers?',
    );
    const refill = await post('/api/external/refill-requests', {});
    expect(refill.body.error.message).toBe(
      'Route POST /api/external/refill-requests not found; did you mean POST /api/external/refill-request?',
    );
    const services = await t.partner(setup.clinic.apiKey).get('/api/external/carriers/fedex/service');
    expect(services.body.error.message).toBe(
      'Route GET /api/external/carriers/fedex/service not found; did you mean GET /api/external/carriers/{carrierId}/services?',
    );
    const far = await t.partner(setup.clinic.apiKey).get('/api/external/nothing-like-it/at-all');
    expect(far.body.error.message).toBe('Route GET /api/external/nothing-like-it/at-all not found');
  });

  it('when a carrier id is written with capitals, then the 404 says carrier ids are lower case', async () => {
    const res = await t.partner(setup.clinic.apiKey).get(`/api/external/carriers/FedEx/services?patientId=${setup.patientId}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Carrier not found: carrier ids are lower case (fedex)' });
    const order = await post('/api/external/medication-order', orderBody(setup, { carrier_id: 'FedEx' }));
    expect(order.status).toBe(400);
    expect(order.body.error.details).toEqual({
      carrier_id: 'is not a known carrier: carrier ids are lower case (fedex); see GET /api/external/carriers',
    });
  });
});
