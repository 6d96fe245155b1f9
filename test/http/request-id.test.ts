import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApp } from '../helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// The request id is pure HTTP plumbing: one dialect is enough.
describe('X-Request-Id', () => {
  let t: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    ({ apiKey } = await t.createClinic());
  });
  afterAll(async () => t.close());

  it('when a request carries no X-Request-Id, then the response carries a fresh UUID', async () => {
    const a = await t.request('GET', '/healthz');
    const b = await t.request('GET', '/healthz');
    expect(a.headers['x-request-id']).toMatch(UUID);
    expect(b.headers['x-request-id']).toMatch(UUID);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it.each([
    ['a UUID', '0b6c9a8e-3f0e-4c1a-9d7e-2a5b6c7d8e9f'],
    ['a trace-style id', 'req_01HZX3KJ5Q.retry-2:edge@lb1'],
    ['one character', 'x'],
    ['128 characters', 'a'.repeat(128)],
  ])('when a well-formed X-Request-Id is sent (%s), then it is echoed on success and on errors', async (_name, id) => {
    const ok = await t.request('GET', '/healthz', { headers: { 'x-request-id': id } });
    expect(ok.headers['x-request-id']).toBe(id);
    const refused = await t.request('GET', '/api/external/carriers', { headers: { 'x-request-id': id } });
    expect(refused.status).toBe(401);
    expect(refused.headers['x-request-id']).toBe(id);
    expect(refused.body.error.request_id).toBe(id);
  });

  it.each([
    ['with spaces', 'my request id'],
    ['too long (129 characters)', 'a'.repeat(129)],
    ['with a header-injection attempt', 'abc\tdef'],
    ['with markup', '<script>alert(1)</script>'],
    ['with a quote', 'id"; drop'],
    ['non-ASCII', 'r\u00e9quete'],
  ])('when a malformed X-Request-Id is sent (%s), then it is replaced by a fresh UUID', async (_name, id) => {
    const res = await t.request('GET', '/api/external/nope', { headers: { 'x-request-id': id } });
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  });

  it.each([
    ['a 401', 'GET', '/api/external/carriers', {}],
    ['a 404 outside the API', 'GET', '/no/such/page', {}],
    ['a 405', 'DELETE', '/healthz', {}],
    ['a 406', 'GET', '/api/external/carriers', { accept: 'text/html' }],
    ['an operator 401', 'GET', '/api/admin/clinics', {}],
  ])(
    'when the response is %s, then error.request_id equals the X-Request-Id header',
    async (_name, method, url, headers: Record<string, string>) => {
      const res = await t.request(method, url, {
        headers: { ...headers, ...(url.startsWith('/api/external') && headers.accept ? { 'x-api-key': apiKey } : {}) },
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.body.error.request_id).toMatch(UUID);
      expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
    },
  );

  it('when the docs and the OpenAPI document are served, then they carry X-Request-Id too', async () => {
    expect((await t.request('GET', '/openapi.json')).headers['x-request-id']).toMatch(UUID);
    expect((await t.request('GET', '/docs/')).headers['x-request-id']).toMatch(UUID);
  });
});
