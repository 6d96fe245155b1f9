import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp, type Reply } from '../helpers/test-app.js';

const CARRIERS = '/api/external/carriers';
const LIMIT = 3;
/** 10 seconds into a minute: the window ends 50 s later. */
const START = Date.parse('2031-03-04T05:06:10.000Z');
const WINDOW_END_SECONDS = Date.parse('2031-03-04T05:07:00.000Z') / 1000;

/** A clock the test moves by hand. */
function fakeClock(start: number) {
  let now = start;
  const clock = () => new Date(now);
  return Object.assign(clock, {
    set: (ms: number) => {
      now = ms;
    },
  });
}

function rateHeaders(res: Reply) {
  return {
    limit: res.headers['x-ratelimit-limit'],
    remaining: res.headers['x-ratelimit-remaining'],
    reset: res.headers['x-ratelimit-reset'],
  };
}

/** Every case runs on the per-process store and, when Redis is there (always in CI), on Redis. */
const redisUrl = inject('redisUrl');
const STORES = redisUrl ? (['memory', 'redis'] as const) : (['memory'] as const);
const CASES = DIALECTS.flatMap((dialect) => STORES.map((store) => [dialect, store] as const));

/** A well-formed key nobody issued, new each time (a guesser's). */
const guess = () => `dev_${randomBytes(32).toString('base64url')}`;

/** The counter of one bucket kind in rate_limit_rejections_total. */
async function rejections(t: TestApp, bucket: 'key' | 'address'): Promise<number> {
  const metric = await t.ctx.metrics.rateLimitRejections.get();
  return metric.values.find((value) => value.labels.bucket === bucket)?.value ?? 0;
}

describe.each(CASES)('rate limits on %s, counted in %s', (dialect, store) => {
  const clock = fakeClock(START);
  let t: TestApp;
  /** A fresh address per test, so that unauthenticated counters never leak between tests. */
  let address = 0;
  const nextAddress = () => `203.0.113.${++address}`;

  beforeAll(async () => {
    t = await TestApp.start({
      dialect,
      clock,
      env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), ...(store === 'redis' && redisUrl ? { REDIS_URL: redisUrl } : {}) },
    });
    expect(t.ctx.redis !== undefined).toBe(store === 'redis');
  });
  afterAll(async () => t.close());
  beforeEach(() => clock.set(START));

  const call = async (url: string, headers: Record<string, string>, remoteAddress = '198.51.100.7'): Promise<Reply> => {
    const response = await t.app.inject({ method: 'GET', url, headers, remoteAddress });
    return { status: response.statusCode, body: response.json(), headers: response.headers };
  };

  it('when a keyed request succeeds, then it carries the limit, what is left and the window end in Unix seconds', async () => {
    const { apiKey } = await t.createClinic();
    const res = await call(CARRIERS, { 'x-api-key': apiKey });
    expect(res.status).toBe(200);
    expect(rateHeaders(res)).toEqual({ limit: String(LIMIT), remaining: String(LIMIT - 1), reset: String(WINDOW_END_SECONDS) });
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('when keyed requests are refused for another reason (404, 406), then they carry the headers and count', async () => {
    const { apiKey } = await t.createClinic();
    const notFound = await call('/api/external/nothing-here', { 'x-api-key': apiKey });
    expect(notFound.status).toBe(404);
    expect(rateHeaders(notFound)).toEqual({ limit: '3', remaining: '2', reset: String(WINDOW_END_SECONDS) });
    const notAcceptable = await call(CARRIERS, { 'x-api-key': apiKey, accept: 'text/html' });
    expect(notAcceptable.status).toBe(406);
    expect(rateHeaders(notAcceptable).remaining).toBe('1');
  });

  it('when a request is refused as 401, then it carries the headers of its address\u2019s counter', async () => {
    const res = await call(CARRIERS, {}, nextAddress());
    expect(res.status).toBe(401);
    expect(rateHeaders(res)).toEqual({ limit: '3', remaining: '2', reset: String(WINDOW_END_SECONDS) });
  });

  it('when a key goes past the limit, then 429 RATE_LIMIT_EXCEEDED with retry_after and Retry-After', async () => {
    const { apiKey } = await t.createClinic();
    for (let i = 1; i <= LIMIT; i++) {
      const res = await call(CARRIERS, { 'x-api-key': apiKey });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    const refused = await call(CARRIERS, { 'x-api-key': apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'RATE_LIMIT_EXCEEDED',
        message: expect.stringMatching(/rate limit/i),
        retry_after: 50,
        request_id: refused.headers['x-request-id'],
      },
    });
    expect(refused.headers['retry-after']).toBe('50');
    expect(rateHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: String(WINDOW_END_SECONDS) });
  });

  it('when a key is past the limit, then every further request is refused too, whatever the route', async () => {
    const { apiKey } = await t.createClinic();
    for (let i = 0; i < LIMIT; i++) await call(CARRIERS, { 'x-api-key': apiKey });
    expect((await call(CARRIERS, { 'x-api-key': apiKey })).status).toBe(429);
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/external/practitioner',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(post.statusCode).toBe(429);
  });

  it('when the path is percent-encoded (/api/%65xternal/…), then the request is counted like any other', async () => {
    const { apiKey } = await t.createClinic();
    for (let i = 0; i < LIMIT; i++) expect((await call('/api/%65xternal/carriers', { 'x-api-key': apiKey })).status).toBe(200);
    const refused = await call('/api/external/%63arriers', { 'x-api-key': apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('when two keys are used, then each has its own counter', async () => {
    const a = await t.createClinic();
    const b = await t.createClinic();
    for (let i = 0; i < LIMIT; i++) await call(CARRIERS, { 'x-api-key': a.apiKey });
    expect((await call(CARRIERS, { 'x-api-key': a.apiKey })).status).toBe(429);
    const other = await call(CARRIERS, { 'x-api-key': b.apiKey });
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('when two keys of the same clinic are used, then they are counted apart (the limit is per key)', async () => {
    const a = await t.createClinic();
    const second = await issueApiKey(t.ctx, a.clinicId, null);
    for (let i = 0; i < LIMIT; i++) await call(CARRIERS, { 'x-api-key': a.apiKey });
    expect((await call(CARRIERS, { 'x-api-key': second.api_key })).status).toBe(200);
  });

  it('when a key is used from several addresses, then one counter counts them all', async () => {
    const { apiKey } = await t.createClinic();
    for (let i = 0; i < LIMIT; i++) await call(CARRIERS, { 'x-api-key': apiKey }, nextAddress());
    expect((await call(CARRIERS, { 'x-api-key': apiKey }, nextAddress())).status).toBe(429);
  });

  it('when requests without a valid key go past the limit, then their address gets 429', async () => {
    const ip = nextAddress();
    for (let i = 0; i < LIMIT; i++) expect((await call(CARRIERS, { 'x-api-key': guess() }, ip)).status).toBe(401);
    const refused = await call(CARRIERS, {}, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.headers['retry-after']).toBe('50');
  });

  it('when one address is limited, then another address without a key is not', async () => {
    const ip = nextAddress();
    for (let i = 0; i <= LIMIT; i++) await call(CARRIERS, {}, ip);
    expect((await call(CARRIERS, {}, ip)).status).toBe(429);
    expect((await call(CARRIERS, {}, nextAddress())).status).toBe(401);
  });

  it('when an address is limited for bad keys, then a key that has worked before still works from it (its own counter)', async () => {
    const { apiKey } = await t.createClinic();
    const ip = nextAddress();
    expect((await call(CARRIERS, { 'x-api-key': apiKey }, nextAddress())).status).toBe(200);
    for (let i = 0; i <= LIMIT; i++) await call(CARRIERS, { 'x-api-key': guess() }, ip);
    expect((await call(CARRIERS, { 'x-api-key': guess() }, ip)).status).toBe(429);
    const known = await call(CARRIERS, { 'x-api-key': apiKey }, ip);
    expect(known.status).toBe(200);
    expect(known.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 2));
  });

  it('when an address has used up its failed authentications, then a key never used before is refused from it until the window ends', async () => {
    const { apiKey } = await t.createClinic();
    const ip = nextAddress();
    for (let i = 0; i < LIMIT; i++) expect((await call(CARRIERS, { 'x-api-key': guess() }, ip)).status).toBe(401);
    const refused = await call(CARRIERS, { 'x-api-key': apiKey }, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(rateHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: String(WINDOW_END_SECONDS) });
    expect(refused.headers['retry-after']).toBe('50');
    clock.set(WINDOW_END_SECONDS * 1000);
    expect((await call(CARRIERS, { 'x-api-key': apiKey }, ip)).status).toBe(200);
  });

  it('when a valid key is used from an address, then it does not use up the failed-authentication budget of that address', async () => {
    const { apiKey } = await t.createClinic();
    const ip = nextAddress();
    for (let i = 0; i < LIMIT; i++) expect((await call(CARRIERS, { 'x-api-key': apiKey }, ip)).status).toBe(200);
    const bad = await call(CARRIERS, { 'x-api-key': guess() }, ip);
    expect(bad.status).toBe(401);
    expect(bad.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('when requests are refused with 429, then rate_limit_rejections_total counts each under its bucket kind', async () => {
    const [keyBefore, addressBefore] = [await rejections(t, 'key'), await rejections(t, 'address')];
    const { apiKey } = await t.createClinic();
    for (let i = 0; i < LIMIT; i++) await call(CARRIERS, { 'x-api-key': apiKey });
    expect((await call(CARRIERS, { 'x-api-key': apiKey })).status).toBe(429);
    expect((await call(CARRIERS, { 'x-api-key': apiKey })).status).toBe(429);
    const ip = nextAddress();
    for (let i = 0; i < LIMIT; i++) await call(CARRIERS, {}, ip);
    expect((await call(CARRIERS, {}, ip)).status).toBe(429);
    expect((await call(CARRIERS, { 'x-api-key': guess() }, ip)).status).toBe(429);
    expect(await rejections(t, 'key')).toBe(keyBefore + 2);
    expect(await rejections(t, 'address')).toBe(addressBefore + 2);
  });

  it('when the minute ends, then the counter starts again', async () => {
    const { apiKey } = await t.createClinic();
    for (let i = 0; i < LIMIT; i++) await call(CARRIERS, { 'x-api-key': apiKey });
    clock.set(START + 49_000);
    const late = await call(CARRIERS, { 'x-api-key': apiKey });
    expect(late.status).toBe(429);
    expect(late.body.error.retry_after).toBe(1);
    clock.set(WINDOW_END_SECONDS * 1000);
    const next = await call(CARRIERS, { 'x-api-key': apiKey });
    expect(next.status).toBe(200);
    expect(rateHeaders(next)).toEqual({ limit: '3', remaining: '2', reset: String(WINDOW_END_SECONDS + 60) });
  });

  it.each(['/healthz', '/readyz', '/openapi.json', '/docs/'])(
    'when %s is called again and again, then it is never limited and has no rate-limit headers',
    async (url) => {
      for (let i = 0; i < LIMIT + 2; i++) {
        const res = await t.app.inject({ method: 'GET', url, remoteAddress: '192.0.2.99' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    },
  );

  it('when the operator calls again and again, then the partner limit does not apply', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await t.operator.get('/api/admin/no-such-operator-route');
      expect(res.status).toBe(404);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe.each(CASES)('a flood of guessed keys on %s, counted in %s', (dialect, store) => {
  it('when an address has used up its failed authentications, then its guessed keys are refused without asking the database', async () => {
    const t = await TestApp.start({
      dialect,
      clock: fakeClock(START),
      env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), ...(store === 'redis' && redisUrl ? { REDIS_URL: redisUrl } : {}) },
    });
    try {
      const flood = (ip: string) =>
        t.app.inject({ method: 'GET', url: CARRIERS, headers: { 'x-api-key': guess() }, remoteAddress: ip });
      for (let i = 0; i < LIMIT; i++) expect((await flood('198.51.100.20')).statusCode).toBe(401);

      // From here on any lookup would fail with a 500: the database is gone.
      await t.ctx.db.destroy();
      for (let i = 0; i < 20; i++) {
        const refused = await flood('198.51.100.20');
        expect(refused.statusCode).toBe(429);
        expect(refused.json().error.code).toBe('RATE_LIMIT_EXCEEDED');
        expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      }
      // The control: a guessed key from an address with failures left is looked up, and fails.
      expect((await flood('198.51.100.21')).statusCode).toBe(500);
    } finally {
      await t.close();
    }
  });
});

describe('rate-limit defaults', () => {
  it('when RATE_LIMIT_PER_MINUTE is unset in development, then the limit is 100', async () => {
    const t = await TestApp.start({ dialect: 'sqlite', env: { RATE_LIMIT_PER_MINUTE: '' } });
    try {
      const { apiKey } = await t.createClinic();
      const res = await t.partner(apiKey).get(CARRIERS);
      expect(res.headers['x-ratelimit-limit']).toBe('100');
      expect(res.headers['x-ratelimit-remaining']).toBe('99');
    } finally {
      await t.close();
    }
  });

  it('when RATE_LIMIT_PER_MINUTE is unset in production, then the limit is 60', async () => {
    const t = await TestApp.start({
      dialect: 'sqlite',
      env: { RATE_LIMIT_PER_MINUTE: '', FULFILLMENT_ENV: 'production', ADMIN_TOKEN: 'prod-operator-token-0123456789-abcdef' },
    });
    try {
      const { clinicId } = await t.createClinic();
      const key = await issueApiKey(t.ctx, clinicId, null, 'production');
      const res = await t.partner(key.api_key).get(CARRIERS);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe('59');
    } finally {
      await t.close();
    }
  });
});
