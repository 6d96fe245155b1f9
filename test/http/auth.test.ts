import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, revokeApiKey } from '../../src/clinics/clinic.service.js';
import { DIALECTS } from '../helpers/test-db.js';
import { OPERATOR_TOKEN, TestApp, type Reply } from '../helpers/test-app.js';

const CARRIERS = '/api/external/carriers';
const PROD_OPERATOR_TOKEN = 'prod-operator-token-0123456789-abcdef';

function expectUnauthorized(res: Reply, reason?: RegExp): void {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({
    success: false,
    error: { message: expect.stringMatching(/^Unauthorized/), code: 'UNAUTHORIZED', request_id: res.headers['x-request-id'] },
  });
  if (reason) expect(res.body.error.message).toMatch(reason);
}

const keyHeaders = (key: string): Record<string, string> => ({ 'x-api-key': key, accept: 'application/json' });

describe.each(DIALECTS)('partner authentication on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when a valid development key is sent, then the partner route answers 200', async () => {
    const { apiKey } = await t.createClinic();
    const res = await t.partner(apiKey).get(CARRIERS);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('when the header name is written in another case, then the key is still read (HTTP headers are case-insensitive)', async () => {
    const { apiKey } = await t.createClinic();
    const res = await t.request('GET', CARRIERS, { headers: { 'X-API-KEY': apiKey } });
    expect(res.status).toBe(200);
  });

  it('when x-api-key is missing, then 401 says the header is missing', async () => {
    expectUnauthorized(await t.request('GET', CARRIERS, { headers: { accept: 'application/json' } }), /missing x-api-key/);
  });

  it('when x-api-key is empty, then 401', async () => {
    expectUnauthorized(await t.request('GET', CARRIERS, { headers: keyHeaders('') }));
  });

  it('when the key has the right format but was never issued, then 401 invalid API key', async () => {
    const unknown = `dev_${randomBytes(32).toString('base64url')}`;
    expectUnauthorized(await t.request('GET', CARRIERS, { headers: keyHeaders(unknown) }), /invalid API key/);
  });

  it.each([
    ['no known prefix', 'sk_live_0123456789abcdef0123456789abcdef'],
    ['the prefix alone', 'dev_'],
    ['a Bearer scheme in front', 'Bearer dev_0123456789abcdef0123456789abcdef0123456'],
    ['far too long', `dev_${'a'.repeat(500)}`],
    ['upper-case prefix', 'DEV_0123456789abcdef0123456789abcdef0123456'],
  ])('when the key is malformed (%s), then 401', async (_name, key) => {
    expectUnauthorized(await t.request('GET', CARRIERS, { headers: keyHeaders(key) }));
  });

  it('when an issued key has one character changed, then 401', async () => {
    const { apiKey } = await t.createClinic();
    const last = apiKey.at(-1) === 'A' ? 'B' : 'A';
    expectUnauthorized(await t.request('GET', CARRIERS, { headers: keyHeaders(apiKey.slice(0, -1) + last) }), /invalid API key/);
  });

  it('when a key is revoked, then the very next request with it is refused', async () => {
    const { apiKey, apiKeyId } = await t.createClinic();
    expect((await t.partner(apiKey).get(CARRIERS)).status).toBe(200);
    await revokeApiKey(t.ctx, apiKeyId, null);
    expectUnauthorized(await t.partner(apiKey).get(CARRIERS), /revoked/);
  });

  it('when one key of a clinic is revoked, then its other key keeps working', async () => {
    const { clinicId, apiKeyId } = await t.createClinic();
    const second = await issueApiKey(t.ctx, clinicId, null);
    await revokeApiKey(t.ctx, apiKeyId, null);
    expect((await t.partner(second.api_key).get(CARRIERS)).status).toBe(200);
  });

  it('when a production key is sent to the development server, then 401 names the environments', async () => {
    const { clinicId } = await t.createClinic();
    const prodKey = await issueApiKey(t.ctx, clinicId, null, 'production');
    expect(prodKey.api_key.startsWith('prod_')).toBe(true);
    expectUnauthorized(await t.partner(prodKey.api_key).get(CARRIERS), /production key.*development/);
  });

  it('when the key is invalid, then the partner route is not reached even for a body that would be refused', async () => {
    const res = await t.request('POST', '/api/external/practitioner', {
      headers: { 'x-api-key': 'nope', 'content-type': 'application/json' },
      payload: '{not json',
    });
    expectUnauthorized(res);
  });

  it('when the path is percent-encoded (/api/%65xternal/…), then the key is still required', async () => {
    expectUnauthorized(await t.request('GET', '/api/%65xternal/carriers', { headers: { accept: 'application/json' } }));
    expectUnauthorized(await t.request('GET', '/api/external/%63arriers', { headers: { accept: 'application/json' } }));
  });

  it('when a path under /api/external does not exist, then a missing key is still 401 (no route discovery without a key)', async () => {
    expectUnauthorized(await t.request('GET', '/api/external/no-such-thing'));
  });
});

describe.each(DIALECTS)('API keys at rest on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when a key is issued, then it is dev_ followed by 43 base64url characters (32 random bytes)', async () => {
    const { apiKey } = await t.createClinic();
    expect(apiKey).toMatch(/^dev_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(apiKey.slice(4), 'base64url')).toHaveLength(32);
  });

  it('when a production key is issued, then it is prod_ followed by 43 base64url characters', async () => {
    const { clinicId } = await t.createClinic();
    const key = await issueApiKey(t.ctx, clinicId, null, 'production');
    expect(key.api_key).toMatch(/^prod_[A-Za-z0-9_-]{43}$/);
    expect(key.environment).toBe('production');
  });

  it('when two keys are issued, then they differ', async () => {
    const a = await t.createClinic();
    const b = await t.createClinic();
    expect(a.apiKey).not.toBe(b.apiKey);
  });

  it('when a key is stored, then its row holds only the SHA-256 hash and a short display prefix, never the key', async () => {
    const { apiKey, apiKeyId, clinicId } = await t.createClinic();
    const row = await t.ctx.db.selectFrom('api_keys').selectAll().where('id', '=', apiKeyId).executeTakeFirstOrThrow();
    expect(row.clinic_id).toBe(clinicId);
    expect(row.environment).toBe('development');
    expect(row.key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    expect(row.key_prefix.length).toBeLessThanOrEqual(12);
    const secret = apiKey.slice(4);
    for (const value of Object.values(row)) {
      if (typeof value !== 'string') continue;
      expect(value).not.toContain(apiKey);
      expect(value).not.toContain(secret);
      expect(value).not.toContain(secret.slice(8, 24));
    }
  });
});

describe.each(DIALECTS)('partner authentication on a production server on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: { FULFILLMENT_ENV: 'production', ADMIN_TOKEN: PROD_OPERATOR_TOKEN } });
  });
  afterAll(async () => t.close());

  it('when a production key is sent, then 200', async () => {
    const { apiKey } = await t.createClinic();
    expect(apiKey.startsWith('prod_')).toBe(true);
    expect((await t.partner(apiKey).get(CARRIERS)).status).toBe(200);
  });

  it('when a development key is sent to the production server, then 401 names the environments', async () => {
    const { clinicId } = await t.createClinic();
    const devKey = await issueApiKey(t.ctx, clinicId, null, 'development');
    expectUnauthorized(await t.partner(devKey.api_key).get(CARRIERS), /development key.*production/);
  });
});

describe.each(DIALECTS)('operator authentication on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer not-the-operator-token' }],
    ['the token without the Bearer scheme', { authorization: OPERATOR_TOKEN }],
    ['Basic instead of Bearer', { authorization: `Basic ${OPERATOR_TOKEN}` }],
  ])('when an operator request has %s, then 401 UNAUTHORIZED', async (_name, headers: Record<string, string>) => {
    expectUnauthorized(
      await t.request('POST', '/api/admin/clinics', {
        headers: { ...headers, 'content-type': 'application/json' },
        body: { name: 'X' },
      }),
    );
  });

  it('when a partner key is sent to an operator route, then 401 (partner keys are not operator tokens)', async () => {
    const { apiKey } = await t.createClinic();
    expectUnauthorized(
      await t.request('GET', '/api/admin/clinics', { headers: { authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey } }),
    );
  });

  it('when the operator path is percent-encoded (/api/%61dmin/…), then the token is still required', async () => {
    expectUnauthorized(
      await t.request('POST', '/api/%61dmin/clinics', { headers: { 'content-type': 'application/json' }, body: { name: 'X' } }),
    );
  });
});
