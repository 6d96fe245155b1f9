import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { OPERATOR_FAILURE_LIMIT } from '../../src/http/operator-guard.js';
import { OPERATOR_TOKEN, TestApp, type Reply } from '../helpers/test-app.js';
import { fakeClock } from '../webhooks/support.js';

const CLINICS = '/api/admin/clinics';
/** 10 seconds into a minute: the window ends 50 s later. */
const START = Date.parse('2031-03-04T05:06:10.000Z');
const NEXT_WINDOW = Date.parse('2031-03-04T05:07:00.000Z');
const RIGHT = { authorization: `Bearer ${OPERATOR_TOKEN}` };
const WRONG = { authorization: 'Bearer not-the-operator-token-but-long-enough' };

/**
 * Failed operator authentications, limited per client address (issue 9, item 5). The guard touches
 * no database: SQLite only, on the per-process store and, when Redis is there (always in CI), on Redis.
 */
const redisUrl = inject('redisUrl');
const STORES = redisUrl ? (['memory', 'redis'] as const) : (['memory'] as const);

describe.each(STORES)('failed operator authentications counted in %s', (store) => {
  const time = fakeClock(START);
  let t: TestApp;
  /** A fresh address per test, so that counters never leak between tests. */
  let address = 0;
  let client = '';

  beforeAll(async () => {
    t = await TestApp.start({
      dialect: 'sqlite',
      clock: time.clock,
      env: store === 'redis' && redisUrl ? { REDIS_URL: redisUrl } : {},
    });
    expect(t.ctx.redis !== undefined).toBe(store === 'redis');
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    time.set(START);
    client = `203.0.113.${++address}`;
  });

  const call = async (headers: Record<string, string>, options: { url?: string; from?: string } = {}): Promise<Reply> => {
    const response = await t.app.inject({
      method: 'GET',
      url: options.url ?? CLINICS,
      headers,
      remoteAddress: options.from ?? client,
    });
    return { status: response.statusCode, body: response.json(), headers: response.headers };
  };
  const fail = async (times: number, url = CLINICS) => {
    for (let i = 0; i < times; i++) expect((await call(WRONG, { url })).status).toBe(401);
  };
  const operatorRejections = async () =>
    (await t.ctx.metrics.rateLimitRejections.get()).values.find((value) => value.labels.bucket === 'operator')?.value ?? 0;

  it('when an address has failed 20 times in a minute, then its next request is 429 with Retry-After, even with the right token', async () => {
    const before = await operatorRejections();
    await fail(OPERATOR_FAILURE_LIMIT);
    const refused = await call(RIGHT);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'RATE_LIMIT_EXCEEDED',
        message: expect.stringMatching(/failed operator authentications/),
        retry_after: 50,
        request_id: refused.headers['x-request-id'],
      },
    });
    expect(refused.headers['retry-after']).toBe('50');
    expect(await operatorRejections()).toBe(before + 1);
  });

  it('when requests come without any Authorization header, then they count as failures too', async () => {
    for (let i = 0; i < OPERATOR_FAILURE_LIMIT; i++) expect((await call({})).status).toBe(401);
    expect((await call({})).status).toBe(429);
  });

  it('when one address is blocked, then other addresses are not', async () => {
    await fail(OPERATOR_FAILURE_LIMIT);
    expect((await call(RIGHT)).status).toBe(429);
    expect((await call(RIGHT, { from: '198.51.100.99' })).status).toBe(200);
    expect((await call(WRONG, { from: '198.51.100.98' })).status).toBe(401);
  });

  it('when the minute ends, then the blocked address is let in again', async () => {
    await fail(OPERATOR_FAILURE_LIMIT);
    time.set(NEXT_WINDOW - 1);
    expect((await call(RIGHT)).status).toBe(429);
    time.set(NEXT_WINDOW);
    expect((await call(RIGHT)).status).toBe(200);
    await fail(OPERATOR_FAILURE_LIMIT - 1);
  });

  it('when the operator calls with the right token, then it is never limited, however often', async () => {
    for (let i = 0; i < 3 * OPERATOR_FAILURE_LIMIT; i++) expect((await call(RIGHT)).status).toBe(200);
    // Nor did those calls use up the address's failures.
    await fail(OPERATOR_FAILURE_LIMIT);
    expect((await call(WRONG)).status).toBe(429);
  });

  it('when a right token comes between failures, then the failures are not forgotten', async () => {
    await fail(OPERATOR_FAILURE_LIMIT - 1);
    expect((await call(RIGHT)).status).toBe(200);
    await fail(1);
    expect((await call(RIGHT)).status).toBe(429);
  });

  it('when failures come on /metrics, then they count against the same address: /metrics and /api/admin share one guard', async () => {
    await fail(OPERATOR_FAILURE_LIMIT / 2, '/metrics');
    await fail(OPERATOR_FAILURE_LIMIT / 2, CLINICS);
    expect((await call(RIGHT, { url: '/metrics' })).status).toBe(429);
    expect((await call(RIGHT)).status).toBe(429);
  });

  it('when many wrong tokens arrive at once, then only 20 are compared: the rest are refused before any comparison', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 2 * OPERATOR_FAILURE_LIMIT }, async () => (await call(WRONG)).status),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(OPERATOR_FAILURE_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(OPERATOR_FAILURE_LIMIT);
  });

  it('when requests come through partner routes, then operator failures do not block them', async () => {
    const { apiKey } = await t.createClinic();
    await fail(OPERATOR_FAILURE_LIMIT);
    const res = await call({ 'x-api-key': apiKey, accept: 'application/json' }, { url: '/api/external/carriers' });
    expect(res.status).toBe(200);
  });
});
