import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FHIR_RESOURCE_SCOPES } from '../../src/fhir/smart-scopes.js';
import { TestApp } from '../helpers/test-app.js';

const PATHS = ['/.well-known/smart-configuration', '/fhir/R4/.well-known/smart-configuration'];
const TYPES = ['Patient', 'Practitioner', 'Organization', 'Medication', 'MedicationRequest', 'MedicationDispense'];

/** SMART discovery (issue 32, Contracts 1): no database behind it, so one dialect is enough. */
describe('GET /.well-known/smart-configuration', () => {
  let t: TestApp;
  let configured: TestApp;

  beforeAll(async () => {
    [t, configured] = await Promise.all([
      TestApp.start({ dialect: 'sqlite' }),
      TestApp.start({ dialect: 'sqlite', env: { PUBLIC_BASE_URL: 'https://fulfillment.example.com/' } }),
    ]);
  });
  afterAll(async () => Promise.all([t.close(), configured.close()]));

  const discover = (app: TestApp, url: string, headers: Record<string, string> = {}) =>
    app.request('GET', url, { headers: { host: 'api.pharmacy.test', ...headers } });

  it.each(PATHS)(
    'when %s is read without a credential, then it answers SMART backend services\u2019 document, cacheable',
    async (url) => {
      const res = await discover(t, url);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.body).toEqual({
        token_endpoint: 'http://api.pharmacy.test/oauth/token',
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_basic', 'client_secret_post'],
        token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining(['RS384', 'ES384']),
        scopes_supported: expect.any(Array),
        response_types_supported: [],
        capabilities: ['client-confidential-asymmetric', 'client-confidential-symmetric', 'permission-v1', 'permission-v2'],
        code_challenge_methods_supported: ['S256'],
      });
      expect(res.body.token_endpoint_auth_signing_alg_values_supported).not.toContain('none');
      expect(res.body.token_endpoint_auth_signing_alg_values_supported.some((alg: string) => alg.startsWith('HS'))).toBe(false);
    },
  );

  it('when it is read, then scopes_supported lists each of the six resource types\u2019 read-and-search scope and the wildcard, nothing else', async () => {
    const res = await discover(t, PATHS[0]!);
    expect([...res.body.scopes_supported].sort()).toEqual([...TYPES.map((type) => `system/${type}.rs`), 'system/*.rs'].sort());
    expect(Object.keys(FHIR_RESOURCE_SCOPES).sort()).toEqual([...TYPES].sort());
  });

  it('when PUBLIC_BASE_URL is set, then the token endpoint is under it, whatever Host the request names', async () => {
    const res = await discover(configured, PATHS[1]!, { host: 'attacker.example' });
    expect(res.body.token_endpoint).toBe('https://fulfillment.example.com/oauth/token');
  });

  it('when a proxy forwards the request but its forwarded host is not trusted, then the token endpoint keeps the Host header', async () => {
    const res = await discover(t, PATHS[0]!, { 'x-forwarded-host': 'attacker.example' });
    expect(res.body.token_endpoint).toBe('http://api.pharmacy.test/oauth/token');
  });

  it('when the OpenAPI document is read, then it lists the discovery route without a credential', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.paths['/.well-known/smart-configuration'].get).toMatchObject({ tags: ['OAuth'], security: [] });
  });
});
