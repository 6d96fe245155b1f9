import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_API_VERSION, pinnedVersion, SUPPORTED_API_VERSIONS } from '../../src/http/api-version.js';
import { OPERATOR_TOKEN, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** The newest version (issue 39's safety checks, a MINOR release), and the older ones a partner may still pin. */
const CURRENT = '1.5.0';
const FOURTH = '1.4.0';
const PREVIOUS = '1.3.0';
const SECOND = '1.2.0';
const EARLIER = '1.1.0';
const OLDER = '1.0.0';
const SUPPORTED = 'supported versions: 1.0.0, 1.1.0, 1.2.0, 1.3.0, 1.4.0, 1.5.0';

describe('which version a pin selects', () => {
  it('when the header names 1.0.0 or 1.0 (spaces around allowed), then 1.0.0 answers', () => {
    for (const pin of ['1.0.0', '1.0', ' 1.0.0\t']) expect(pinnedVersion(pin), pin).toBe(OLDER);
  });

  it('when the header names 1.1.0 or 1.1, then 1.1.0 answers', () => {
    for (const pin of ['1.1.0', '1.1', ' 1.1.0 ']) expect(pinnedVersion(pin), pin).toBe(EARLIER);
  });

  it('when the header names 1.2.0 or 1.2, then 1.2.0 answers', () => {
    for (const pin of ['1.2.0', '1.2', ' 1.2.0 ']) expect(pinnedVersion(pin), pin).toBe(SECOND);
  });

  it('when the header names 1.3.0 or 1.3, then 1.3.0 answers', () => {
    for (const pin of ['1.3.0', '1.3', ' 1.3.0 ']) expect(pinnedVersion(pin), pin).toBe(PREVIOUS);
  });

  it('when the header names 1.4.0 or 1.4, then 1.4.0 answers', () => {
    for (const pin of ['1.4.0', '1.4', ' 1.4.0 ']) expect(pinnedVersion(pin), pin).toBe(FOURTH);
  });

  it('when the header names 1.5.0, 1.5 or 1, then 1.5.0 answers; when absent, none is selected (the newest answers)', () => {
    for (const pin of ['1.5.0', '1.5', '1', ' 1 ']) expect(pinnedVersion(pin), pin).toBe(CURRENT);
    expect(pinnedVersion(undefined)).toBeUndefined();
    expect(SUPPORTED_API_VERSIONS).toEqual([OLDER, EARLIER, SECOND, PREVIOUS, FOURTH, CURRENT]);
    expect(CURRENT_API_VERSION).toBe(CURRENT);
  });

  it('when the header is malformed, unknown or sent twice, then no version is selected', () => {
    for (const pin of [
      '2',
      '0.9',
      '1.6',
      '1.6.0',
      '1.0.1',
      '1.1.1',
      '1.2.1',
      '1.3.1',
      '1.4.1',
      '1.5.1',
      '01',
      '1.0.0-beta',
      'v1',
      '',
      'latest',
      '1.0.0, 1',
      '9'.repeat(500),
    ]) {
      expect(pinnedVersion(pin), pin).toBeNull();
    }
    expect(pinnedVersion(['1.0.0', '1.0.0'])).toBeNull();
  });
});

describe.each(DIALECTS)('the Api-Version header on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  const LIMIT = 5;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());

  /** A partner GET with the spec's headers and an optional pin; each call counts against the key's limit. */
  const get = (url: string, pin?: string, key = clinic.apiKey) =>
    t.request('GET', url, {
      headers: { 'x-api-key': key, accept: 'application/json', ...(pin !== undefined ? { 'api-version': pin } : {}) },
    });

  it('when a partner request pins nothing, then the answer names the newest version', async () => {
    const res = await get('/api/external/carriers');
    expect(res.status).toBe(200);
    expect(res.headers['api-version']).toBe(CURRENT);
  });

  it('when a request pins 1.0.0 or 1.0 (an older supported version), then it is answered, by 1.0.0', async () => {
    const other = await t.createClinic();
    for (const pin of ['1.0.0', '1.0']) {
      const res = await get('/api/external/carriers', pin, other.apiKey);
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBe(OLDER);
    }
  });

  it('when a request pins 1.1.0 or 1.1 (an older supported version), then it is answered, by 1.1.0', async () => {
    const other = await t.createClinic();
    for (const pin of ['1.1.0', '1.1']) {
      const res = await get('/api/external/carriers', pin, other.apiKey);
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBe(EARLIER);
    }
  });

  it('when a request pins 1.2.0 or 1.2 (an older supported version), then it is answered, by 1.2.0', async () => {
    const other = await t.createClinic();
    for (const pin of ['1.2.0', '1.2']) {
      const res = await get('/api/external/carriers', pin, other.apiKey);
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBe(SECOND);
    }
  });

  it('when a request pins 1.3.0 or 1.3 (an older supported version), then it is answered, by 1.3.0', async () => {
    const other = await t.createClinic();
    for (const pin of ['1.3.0', '1.3']) {
      const res = await get('/api/external/carriers', pin, other.apiKey);
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBe(PREVIOUS);
    }
  });

  it('when a request pins 1.4.0 or 1.4 (an older supported version), then it is answered, by 1.4.0', async () => {
    const other = await t.createClinic();
    for (const pin of ['1.4.0', '1.4']) {
      const res = await get('/api/external/carriers', pin, other.apiKey);
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBe(FOURTH);
    }
  });

  it('when a request pins 1.5.0, 1.5 or 1, then it is answered, by 1.5.0', async () => {
    const other = await t.createClinic();
    for (const pin of ['1.5.0', '1.5', '1']) {
      const res = await get('/api/external/carriers', pin, other.apiKey);
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBe(CURRENT);
    }
  });

  it('when the operator API is pinned to 1.0.0, 1.1.0, 1.2.0 or 1.3.0, then it is answered by that version too', async () => {
    for (const pin of [OLDER, EARLIER, SECOND, PREVIOUS]) {
      const res = await t.request('GET', '/api/admin/clinics', {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'api-version': pin },
      });
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBe(pin);
    }
  });

  it('when a FHIR request pins a version or none, then it is answered without Api-Version (FHIR is versioned by its path)', async () => {
    const other = await t.createClinic();
    for (const pin of [undefined, '7', '1.0.0']) {
      const res = await t.request('GET', `/fhir/R4/Organization/${other.clinicId}`, {
        headers: {
          'x-api-key': other.apiKey,
          accept: 'application/fhir+json',
          ...(pin !== undefined ? { 'api-version': pin } : {}),
        },
      });
      expect(res.status, pin).toBe(200);
      expect(res.headers['api-version'], pin).toBeUndefined();
    }
    const metadata = await t.request('GET', '/fhir/R4/metadata', { headers: { accept: 'application/fhir+json' } });
    expect(metadata.status).toBe(200);
    expect(metadata.headers['api-version']).toBeUndefined();
    // The server's own version is still named, where FHIR puts it.
    expect(metadata.body.software).toEqual({ name: expect.any(String), version: CURRENT });
  });

  it.each([
    ['2', '2', 'names a version this server does not answer'],
    ['0.9', '0.9', 'names a version this server does not answer'],
    ['1.6.0 (a minor not released yet)', '1.6.0', 'names a version this server does not answer'],
    ['1.6', '1.6', 'names a version this server does not answer'],
    ['1.0.1', '1.0.1', 'names a version this server does not answer'],
    ['1.1.1', '1.1.1', 'names a version this server does not answer'],
    ['1.2.1', '1.2.1', 'names a version this server does not answer'],
    ['1.3.1', '1.3.1', 'names a version this server does not answer'],
    ['1.0.0-beta', '1.0.0-beta', 'must be a version such as 1.0.0, 1.0 or 1'],
    ['garbage', 'garbage', 'must be a version such as 1.0.0, 1.0 or 1'],
    ['4000 digits', '1'.repeat(4000), 'must be a version such as 1.0.0, 1.0 or 1'],
    ['"1.0.0, 1.0.0"', '1.0.0, 1.0.0', 'must be sent once'],
  ])(
    'when a request pins %s, then 400 VALIDATION_ERROR names Api-Version and the supported versions',
    async (_label, pin, problem) => {
      const fresh = await t.createClinic();
      const res = await get('/api/external/carriers', pin, fresh.apiKey);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: `Validation failed: Api-Version ${problem}; ${SUPPORTED}`,
          details: { 'Api-Version': `${problem}; ${SUPPORTED}` },
          request_id: expect.any(String),
        },
      });
      expect(res.headers['api-version']).toBe(CURRENT);
      // Refused after the key was checked: the answer counts, as every other 400 does.
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    },
  );

  it('when the same header is sent twice on the wire, then 400 says it must be sent once', async () => {
    const fresh = await t.createClinic();
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/external/carriers',
      headers: { 'x-api-key': fresh.apiKey, 'api-version': ['1.0.0', '1'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual({ 'Api-Version': `must be sent once; ${SUPPORTED}` });
  });

  it('when the body is invalid, then the 400 names the version that answered', async () => {
    const res = await t.request('POST', '/api/external/practitioner', {
      headers: { 'x-api-key': clinic.apiKey, 'content-type': 'application/json', 'api-version': '1' },
      body: {},
    });
    expect(res.status).toBe(400);
    expect(res.headers['api-version']).toBe(CURRENT);
  });

  it('when the key is missing, then the 401 names the version, and a bad pin does not come before it', async () => {
    const missing = await t.request('GET', '/api/external/carriers', { headers: { 'api-version': '7' } });
    expect(missing.status).toBe(401);
    expect(missing.headers['api-version']).toBe(CURRENT);
  });

  it('when the route is unknown, then the 404 names the version', async () => {
    const res = await get('/api/external/no-such-route');
    expect(res.status).toBe(404);
    expect(res.headers['api-version']).toBe(CURRENT);
  });

  it('when the path cannot be routed (a broken percent-escape), then the 400 names the version too', async () => {
    const res = await get('/api/external/carriers/%E0%A4%A/services');
    expect(res.status).toBe(400);
    expect(res.headers['api-version']).toBe(CURRENT);
  });

  it('when a key goes past its limit, then the 429 names the version', async () => {
    const busy = await t.createClinic();
    let res = await get('/api/external/carriers', undefined, busy.apiKey);
    for (let i = 0; i < LIMIT; i += 1) res = await get('/api/external/carriers', undefined, busy.apiKey);
    expect(res.status).toBe(429);
    expect(res.headers['api-version']).toBe(CURRENT);
  });

  it('when the operator API answers, then it names the version too, and refuses a bad pin the same way', async () => {
    const ok = await t.operator.get('/api/admin/clinics');
    expect(ok.status).toBe(200);
    expect(ok.headers['api-version']).toBe(CURRENT);
    const refused = await t.request('GET', '/api/admin/clinics', {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'api-version': '2.0.0' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual({ 'Api-Version': `names a version this server does not answer; ${SUPPORTED}` });
    const unauthorized = await t.request('GET', '/api/admin/clinics');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['api-version']).toBe(CURRENT);
  });

  it('when a probe or the reference is asked, then no Api-Version is sent and a pin is not looked at', async () => {
    for (const url of ['/healthz', '/openapi.json']) {
      const res = await t.request('GET', url, { headers: { 'api-version': 'garbage' } });
      expect(res.status, url).toBe(200);
      expect(res.headers['api-version'], url).toBeUndefined();
    }
  });
});
