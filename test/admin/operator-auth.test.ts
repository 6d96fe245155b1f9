import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** Every operator route, each called without a token and with a wrong one. */
const ROUTES: [method: string, path: string, body?: unknown][] = [
  ['POST', '/api/admin/clinics', { name: 'X Clinic' }],
  ['GET', '/api/admin/clinics'],
  ['GET', `/api/admin/clinics/${randomUUID()}`],
  ['PUT', `/api/admin/clinics/${randomUUID()}/shipping`, { free_shipping: true }],
  ['POST', `/api/admin/clinics/${randomUUID()}/api-keys`, {}],
  ['GET', `/api/admin/clinics/${randomUUID()}/api-keys`],
  ['DELETE', `/api/admin/api-keys/${randomUUID()}`],
  ['POST', `/api/admin/clinics/${randomUUID()}/medications`, { name: 'Semaglutide' }],
  ['GET', `/api/admin/clinics/${randomUUID()}/medications`],
  ['PATCH', `/api/admin/clinics/${randomUUID()}/medications/${randomUUID()}`, { storage: 'room' }],
  ['DELETE', `/api/admin/clinics/${randomUUID()}/medications/${randomUUID()}`],
  ['POST', '/api/admin/carriers', { name: 'Ameriship' }],
  ['GET', '/api/admin/carriers'],
  ['POST', '/api/admin/carriers/fedex/services', { name: 'FedEx Home', price: 10 }],
  ['PUT', '/api/admin/carriers/fedex/services/fedex_ground', { price: 10 }],
];

/** The same routes as OpenAPI writes them. */
const OPENAPI_PATHS: [method: string, path: string][] = [
  ['post', '/api/admin/clinics'],
  ['get', '/api/admin/clinics'],
  ['get', '/api/admin/clinics/{clinicId}'],
  ['put', '/api/admin/clinics/{clinicId}/shipping'],
  ['post', '/api/admin/clinics/{clinicId}/api-keys'],
  ['get', '/api/admin/clinics/{clinicId}/api-keys'],
  ['delete', '/api/admin/api-keys/{apiKeyId}'],
  ['post', '/api/admin/clinics/{clinicId}/medications'],
  ['get', '/api/admin/clinics/{clinicId}/medications'],
  ['patch', '/api/admin/clinics/{clinicId}/medications/{medicationId}'],
  ['delete', '/api/admin/clinics/{clinicId}/medications/{medicationId}'],
  ['post', '/api/admin/carriers'],
  ['get', '/api/admin/carriers'],
  ['post', '/api/admin/carriers/{carrierId}/services'],
  ['put', '/api/admin/carriers/{carrierId}/services/{serviceId}'],
];

describe.each(DIALECTS)('operator authentication on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  /** Each call from an address of its own: past 20 failures an address is refused with 429 (operator-rate-limit.test.ts). */
  let address = 0;
  const call = (method: string, path: string, body: unknown, authorization?: string) =>
    t.request(method, path, {
      remoteAddress: `198.51.100.${++address}`,
      headers: {
        ...(authorization ? { authorization } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });

  it.each(ROUTES)('when %s %s has no bearer token, then 401 and nothing changes', async (method, path, body) => {
    const res = await call(method, path, body);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    expect(res.body.error.message).toMatch(/^Unauthorized/);
  });

  it.each(ROUTES)('when %s %s has a wrong bearer token, then 401', async (method, path, body) => {
    const res = await call(method, path, body, 'Bearer not-the-operator-token-at-all');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('when a partner API key is sent instead of the bearer token, then 401', async () => {
    const clinic = await t.createClinic();
    const res = await t.request('GET', '/api/admin/clinics', { headers: { 'x-api-key': clinic.apiKey } });
    expect(res.status).toBe(401);
  });

  it('when unauthenticated calls are refused, then no clinic or carrier was created', async () => {
    await call('POST', '/api/admin/clinics', { name: 'Sneaky Clinic' });
    await call('POST', '/api/admin/carriers', { name: 'Sneaky Carrier' }, 'Bearer wrong-token-wrong-token');
    const clinics = await t.ctx.db.selectFrom('clinics').select('name').where('name', '=', 'Sneaky Clinic').execute();
    const carriers = await t.ctx.db.selectFrom('carriers').select('id').where('id', '=', 'sneaky_carrier').execute();
    expect(clinics).toEqual([]);
    expect(carriers).toEqual([]);
  });

  it('when the document is generated, then every operator route is listed under Operator with the bearer scheme', async () => {
    const res = await t.request('GET', '/openapi.json');
    const paths = res.body.paths as Record<
      string,
      Record<string, { tags: string[]; security: unknown; responses: Record<string, unknown> }>
    >;
    for (const [method, template] of OPENAPI_PATHS) {
      const operation = paths[template]?.[method];
      expect(operation, `${method} ${template}`).toBeDefined();
      expect(operation?.tags).toEqual(['Operator']);
      expect(operation?.security).toEqual([{ operatorToken: [] }, { consoleSession: [] }]);
      expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    }
  });
});
