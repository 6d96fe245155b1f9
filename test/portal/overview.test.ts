import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueApiKey, revokeApiKey } from '../../src/clinics/clinic.service.js';
import { portalSignIn } from '../helpers/portal.js';
import { bearer, createClient, FULL, tokenFor } from '../oauth/support.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

const HOUR = 3_600_000;
/** 10 seconds into a minute: its window ends 50 s later. */
const START = Date.parse('2031-05-06T09:00:10.000Z');
const UNKNOWN_ORDER = '/api/external/medication-order/00000000-0000-4000-8000-000000000000';

/** Every case runs on the per-process store and, when Redis is there (always in CI), on Redis. */
const redisUrl = inject('redisUrl');
const STORES = redisUrl ? (['memory', 'redis'] as const) : (['memory'] as const);
const CASES = DIALECTS.flatMap((dialect) => STORES.map((store) => [dialect, store] as const));

describe.each(CASES)('the portal’s overview on %s, rate limits counted in %s', (dialect, store) => {
  const clock = fakeClock(START);
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({
      dialect,
      clock: clock.clock,
      env: { RATE_LIMIT_PER_MINUTE: '50', ...(store === 'redis' && redisUrl ? { REDIS_URL: redisUrl } : {}) },
    });
    expect(t.ctx.redis !== undefined).toBe(store === 'redis');
    clinic = await t.createClinic({ name: 'Overview Clinic' });
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  /** The overview a viewer sees, signed in now (the tests move the clock past a session's life). */
  const overview = async () => {
    await t.ctx.requestLog.flush();
    const { headers } = await portalSignIn(t, clinic.clinicId, 'viewer');
    const res = await t.request('GET', '/api/portal/overview', { headers });
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('when the clinic’s keys are used this minute, then the overview shows the busiest one’s use, each key’s, and counts nothing itself', async () => {
    const second = await issueApiKey(t.ctx, clinic.clinicId, null);
    for (let i = 0; i < 3; i += 1) expect((await t.partner(clinic.apiKey).get('/api/external/carriers')).status).toBe(200);
    await t.partner(second.api_key).get('/api/external/carriers');
    for (let i = 0; i < 7; i += 1) await t.partner(other.apiKey).get('/api/external/carriers');

    const first = await overview();
    expect(first).toMatchObject({ environment: 'development', clinic_id: clinic.clinicId, clinic_name: 'Overview Clinic' });
    expect(first.rate_limit).toEqual({
      limit: 50,
      used: 3,
      resets_at: '2031-05-06T09:01:00.000Z',
      credentials: [
        { kind: 'api_key', id: clinic.apiKeyId, used: 3 },
        { kind: 'api_key', id: second.api_key_id, used: 1 },
      ],
    });
    // Reading it again counts nothing, and the next request is the key's fourth.
    expect((await overview()).rate_limit.used).toBe(3);
    const fourth = await t.partner(clinic.apiKey).get('/api/external/carriers');
    expect(fourth.headers['x-ratelimit-remaining']).toBe('46');
  });

  it('when the minute is over, then the next one’s use starts from 0', async () => {
    clock.set(Date.parse('2031-05-06T09:01:00.000Z'));
    const data = await overview();
    expect(data.rate_limit).toMatchObject({ used: 0, resets_at: '2031-05-06T09:02:00.000Z' });
  });

  it('when requests were answered, then the last 24 hours’ requests and errors by code are counted, older ones and other clinics’ not', async () => {
    clock.set(START + 2 * HOUR);
    const before = await overview();
    const partner = t.partner(clinic.apiKey);
    await partner.get(UNKNOWN_ORDER);
    await partner.get(UNKNOWN_ORDER);
    await partner.post('/api/external/refill-request', {});
    await partner.get('/api/external/carriers');
    await t.partner(other.apiKey).get(UNKNOWN_ORDER);

    const after = await overview();
    expect(after.requests_24h).toBe((before.requests_24h as number) + 4);
    const errorsBefore = new Map<string, number>(
      before.errors_24h.map((e: { code: string; count: number }) => [e.code, e.count]),
    );
    expect(after.errors_24h).toEqual(
      [
        { code: 'NOT_FOUND', count: (errorsBefore.get('NOT_FOUND') ?? 0) + 2 },
        { code: 'VALIDATION_ERROR', count: (errorsBefore.get('VALIDATION_ERROR') ?? 0) + 1 },
      ].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
    );

    // A day after the first requests (at START), only those of this test remain in the window.
    clock.set(START + 24 * HOUR + 1);
    const later = await overview();
    expect(later.requests_24h).toBe(4);
    expect(later.errors_24h).toEqual([
      { code: 'NOT_FOUND', count: 2 },
      { code: 'VALIDATION_ERROR', count: 1 },
    ]);
    clock.set(START + 26 * HOUR + 1);
    expect(await overview()).toMatchObject({ requests_24h: 0, errors_24h: [] });
  });

  it('when a key is revoked, then it is no longer among the credentials counted', async () => {
    const revoked = await issueApiKey(t.ctx, clinic.clinicId, null);
    await revokeApiKey(t.ctx, revoked.api_key_id, null);
    const ids = (await overview()).rate_limit.credentials.map((c: { id: string }) => c.id);
    expect(ids).toContain(clinic.apiKeyId);
    expect(ids).not.toContain(revoked.api_key_id);
  });

  it('when an OAuth client of the clinic makes requests this minute, then its use is shown beside the keys’', async () => {
    clock.set(START + 30 * HOUR);
    const client = await createClient(t, clinic.clinicId, { scopes: FULL });
    const token = await tokenFor(t, client);
    for (let i = 0; i < 2; i += 1) expect((await bearer(t, token).get('/api/external/carriers')).status).toBe(200);
    const { rate_limit: rateLimit } = await overview();
    expect(rateLimit.used).toBe(2);
    expect(rateLimit.credentials[0]).toEqual({ kind: 'oauth_client', id: client.clientId, used: 2 });
  });

  it('when the overview is read, then it names the FHIR base URL and its SMART configuration on the address the portal was reached at', async () => {
    const { headers } = await portalSignIn(t, clinic.clinicId, 'viewer');
    const res = await t.request('GET', '/api/portal/overview', { headers: { ...headers, host: 'partners.pharmacy.test' } });
    expect(res.body.data).toMatchObject({
      fhir_base_url: 'http://partners.pharmacy.test/fhir/R4',
      smart_configuration_url: 'http://partners.pharmacy.test/fhir/R4/.well-known/smart-configuration',
    });
    const discovery = await t.request('GET', new URL(res.body.data.smart_configuration_url).pathname);
    expect(discovery.status).toBe(200);
  });

  it('when nobody is signed in, then the overview is not shown (401)', async () => {
    expect((await t.request('GET', '/api/portal/overview')).status).toBe(401);
  });
});
