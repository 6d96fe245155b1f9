import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { TOKEN_FAILURE_LIMIT } from '../../src/oauth/token-rate-limit.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { fakeClock } from '../webhooks/support.js';
import { basic, createClient, requestToken, type TestOAuthClient } from './support.js';

/** 10 seconds into a minute: the window ends 50 s later. */
const START = Date.parse('2031-03-04T05:06:10.000Z');
const NEXT_WINDOW = Date.parse('2031-03-04T05:07:00.000Z');
const GRANT = { grant_type: 'client_credentials' };

/**
 * The token endpoint's brute-force limit (issue 20, item 3): failed token requests per client address
 * and per client id, in the shared store (per process, and on Redis when it is there: always in CI).
 */
const redisUrl = inject('redisUrl');
const STORES = redisUrl ? (['memory', 'redis'] as const) : (['memory'] as const);

describe.each(STORES)('failed token requests counted in %s', (store) => {
  const time = fakeClock(START);
  let t: TestApp;
  let clinic: TestClinic;
  let address = 0;
  let from = '';
  const nextAddress = () => `203.0.113.${++address}`;

  beforeAll(async () => {
    t = await TestApp.start({
      dialect: 'sqlite',
      clock: time.clock,
      env: store === 'redis' && redisUrl ? { REDIS_URL: redisUrl } : {},
    });
    expect(t.ctx.redis !== undefined).toBe(store === 'redis');
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    time.set(START);
    from = nextAddress();
  });

  const right = (client: TestOAuthClient, remoteAddress = from) =>
    requestToken(t, GRANT, { headers: { authorization: basic(client.clientId, client.secret) }, remoteAddress });
  const wrong = (client: TestOAuthClient, remoteAddress = from) =>
    requestToken(t, GRANT, { headers: { authorization: basic(client.clientId, 'cs_dev_wrong-secret') }, remoteAddress });
  const rejections = async () =>
    (await t.ctx.metrics.rateLimitRejections.get()).values.find((value) => value.labels.bucket === 'oauth_token')?.value ?? 0;

  it('when an address has failed 20 times in a minute, then its next token request is 429 with Retry-After, even with the right secret', async () => {
    const client = await createClient(t, clinic.clinicId, { scopes: ['orders:read'] });
    const before = await rejections();
    for (let i = 0; i < TOKEN_FAILURE_LIMIT; i++) expect((await wrong(client)).status).toBe(401);

    const refused = await right(client);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'invalid_request',
      error_description: `Too many failed token requests from this address: ${TOKEN_FAILURE_LIMIT} a minute; retry after 50 seconds`,
    });
    expect(refused.headers['retry-after']).toBe('50');
    expect(await rejections()).toBe(before + 1);

    // Another address is not held back (with another client: this one has used up its own failures too).
    const other = await createClient(t, clinic.clinicId, { scopes: ['orders:read'] });
    expect((await right(other, nextAddress())).status).toBe(200);
    time.set(NEXT_WINDOW);
    expect((await right(client)).status).toBe(200);
  });

  it('when a client id has failed 20 times in a minute from many addresses, then its next token request is 429 from anywhere', async () => {
    const client = await createClient(t, clinic.clinicId, { scopes: ['orders:read'] });
    for (let i = 0; i < TOKEN_FAILURE_LIMIT; i++) expect((await wrong(client, nextAddress())).status).toBe(401);

    const refused = await right(client, nextAddress());
    expect(refused.status).toBe(429);
    expect(refused.body.error_description).toBe(
      `Too many failed token requests for this client: ${TOKEN_FAILURE_LIMIT} a minute; retry after 50 seconds`,
    );
    time.set(NEXT_WINDOW);
    expect((await right(client, nextAddress())).status).toBe(200);
  });

  it('when token requests succeed, then they do not count against the address or the client', async () => {
    const client = await createClient(t, clinic.clinicId, { scopes: ['orders:read'] });
    for (let i = 0; i < TOKEN_FAILURE_LIMIT + 5; i++) expect((await right(client)).status).toBe(200);
  });
});
