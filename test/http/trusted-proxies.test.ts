import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestApp, OPERATOR_TOKEN, type TestClinic } from '../helpers/test-app.js';

/**
 * TRUST_PROXY (issue 8, item 4): only the listed proxies' X-Forwarded-For / X-Forwarded-Proto are
 * believed, and behind a proxy the partner and operator APIs refuse what did not travel over HTTPS.
 * Addresses and protocols do not depend on the database: SQLite only.
 */
const CARRIERS = '/api/external/carriers';
const CLINICS = '/api/admin/clinics';
const LIMIT = 5;
const PROXY = '10.1.2.3';
const PROXY_V6 = 'fd00::7';
const OUTSIDER = '198.51.100.7';

/** Every request's address as the app resolved it (each request's log line has `req.remoteAddress` = request.ip). */
class ResolvedAddresses {
  readonly lines: string[] = [];
  readonly stream = { write: (line: string) => void this.lines.push(line) };

  of(requestId: string): string | undefined {
    for (const line of this.lines) {
      const entry = JSON.parse(line) as { reqId?: string; msg?: string; req?: { remoteAddress?: string } };
      if (entry.reqId === requestId && entry.msg === 'request completed') return entry.req?.remoteAddress;
    }
    return undefined;
  }
}

describe('behind proxies listed in TRUST_PROXY', () => {
  let t: TestApp;
  let clinic: TestClinic;
  const addresses = new ResolvedAddresses();
  /** A fresh client address per test, so that per-address counters never leak between tests. */
  let n = 0;
  const nextClient = () => `203.0.113.${++n}`;

  beforeAll(async () => {
    t = await TestApp.start({
      dialect: 'sqlite',
      logStream: addresses.stream,
      env: { TRUST_PROXY: '10.0.0.0/8,fd00::/8,127.0.0.1', RATE_LIMIT_PER_MINUTE: String(LIMIT) },
    });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    addresses.lines.length = 0;
  });

  const call = async (url: string, peer: string, headers: Record<string, string> = {}) => {
    const response = await t.app.inject({
      method: 'GET',
      url,
      remoteAddress: peer,
      headers: { accept: 'application/json', ...headers },
    });
    return {
      status: response.statusCode,
      body: response.json(),
      requestId: String(response.headers['x-request-id']),
      remaining: response.headers['x-ratelimit-remaining'],
    };
  };
  const viaProxy = (forwardedFor: string, proto = 'https') => ({ 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': proto });

  it('when a client that is not a listed proxy sends X-Forwarded-For, then its own address is used', async () => {
    const res = await call('/healthz', OUTSIDER, { 'x-forwarded-for': '192.0.2.99' });
    expect(addresses.of(res.requestId)).toBe(OUTSIDER);
  });

  it('when a listed proxy (inside a CIDR range) forwards a request, then the client address it names is used', async () => {
    const client = nextClient();
    const res = await call('/healthz', PROXY, viaProxy(client));
    expect(addresses.of(res.requestId)).toBe(client);
  });

  it('when the proxy is an IPv6 address in a listed range, or an IPv4 one as a dual-stack socket shows it, then it is believed', async () => {
    const v6 = await call('/healthz', PROXY_V6, viaProxy('2001:db8::5'));
    expect(addresses.of(v6.requestId)).toBe('2001:db8::5');
    const mapped = await call('/healthz', `::ffff:${PROXY}`, viaProxy('192.0.2.44'));
    expect(addresses.of(mapped.requestId)).toBe('192.0.2.44');
  });

  it('when X-Forwarded-For holds a chain, then it is walked from the nearest hop and stops at the first address that is not a proxy', async () => {
    // The client forged "192.0.2.1" in front; the proxies 10.0.0.7 and 10.1.2.3 appended the real hops.
    const res = await call('/healthz', PROXY, viaProxy('192.0.2.1, 203.0.113.200, 10.0.0.7'));
    expect(addresses.of(res.requestId)).toBe('203.0.113.200');
  });

  it('when X-Forwarded-For names an address that is no address, then the proxy is taken as the client', async () => {
    const res = await call('/healthz', PROXY, viaProxy('not-an-address'));
    expect(addresses.of(res.requestId)).toBe(PROXY);
    const chained = await call('/healthz', PROXY, viaProxy('192.0.2.1, not-an-address'));
    expect(addresses.of(chained.requestId)).toBe(PROXY);
  });

  it('when guessed keys come from many addresses of one IPv6 /64, then they share one per-address count', async () => {
    const badKey = { 'x-api-key': `${clinic.apiKey.slice(0, -4)}AAAA` };
    const remaining: unknown[] = [];
    for (let host = 1; host <= 3; host++) {
      const res = await call(CARRIERS, PROXY, { ...viaProxy(`2001:db8:aa:bb::${host}`), ...badKey });
      expect(res.status).toBe(401);
      remaining.push(res.remaining);
    }
    expect(remaining).toEqual([String(LIMIT - 1), String(LIMIT - 2), String(LIMIT - 3)]);
    // Another /64 has its own count.
    const other = await call(CARRIERS, PROXY, { ...viaProxy('2001:db8:aa:bc::1'), ...badKey });
    expect(other.remaining).toBe(String(LIMIT - 1));
  });

  it('when clients behind the proxy forge different leftmost entries, then the per-address limit still counts the real client once', async () => {
    const client = nextClient();
    const remaining: unknown[] = [];
    for (const forged of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) {
      const res = await call(CARRIERS, PROXY, viaProxy(`${forged}, ${client}`));
      expect(res.status).toBe(401);
      remaining.push(res.remaining);
    }
    expect(remaining).toEqual([String(LIMIT - 1), String(LIMIT - 2), String(LIMIT - 3)]);
    // Another real client behind the same proxy has a counter of its own.
    expect((await call(CARRIERS, PROXY, viaProxy(nextClient()))).remaining).toBe(String(LIMIT - 1));
  });

  it('when a partner or operator request reached the proxy over https, then it is served', async () => {
    expect((await call(CARRIERS, PROXY, { ...viaProxy(nextClient()), 'x-api-key': clinic.apiKey })).status).toBe(200);
    expect((await call(CLINICS, PROXY, { ...viaProxy(nextClient()), authorization: `Bearer ${OPERATOR_TOKEN}` })).status).toBe(
      200,
    );
  });

  it.each([
    ['partner', CARRIERS, () => ({ 'x-api-key': clinic.apiKey })],
    ['operator', CLINICS, () => ({ authorization: `Bearer ${OPERATOR_TOKEN}` })],
  ])('when a %s request reached the proxy over http, then 403 FORBIDDEN says HTTPS is required', async (_who, url, auth) => {
    const res = await call(url, PROXY, { ...viaProxy(nextClient(), 'http'), ...auth() });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'FORBIDDEN',
        message: 'HTTPS is required: this request reached the proxy over http; call the API with https://',
        request_id: res.requestId,
      },
    });
  });

  it('when proxies appended several protocols, then the nearest proxy (the last entry) decides', async () => {
    const auth = { 'x-api-key': clinic.apiKey };
    expect((await call(CARRIERS, PROXY, { ...viaProxy(nextClient(), 'http, https'), ...auth })).status).toBe(200);
    expect((await call(CARRIERS, PROXY, { ...viaProxy(nextClient(), 'https, http'), ...auth })).status).toBe(403);
  });

  it('when a listed proxy does not send X-Forwarded-Proto, then the request is refused naming the header', async () => {
    const res = await call(CARRIERS, PROXY, { 'x-forwarded-for': nextClient(), 'x-api-key': clinic.apiKey });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('X-Forwarded-Proto');
  });

  it('when a client that is not a proxy claims X-Forwarded-Proto https over plain HTTP, then it is not believed', async () => {
    const res = await call(CARRIERS, OUTSIDER, { 'x-forwarded-proto': 'https', 'x-api-key': clinic.apiKey });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      'HTTPS is required: this request reached the server over plain HTTP; call the API with https://',
    );
  });

  it('when a load balancer probes /healthz and /readyz over http, or reads the API reference, then they stay open', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json']) {
      expect((await call(url, PROXY, viaProxy(nextClient(), 'http'))).status).toBe(200);
      expect((await call(url, PROXY, {})).status).toBe(200);
    }
  });
});

describe('without TRUST_PROXY', () => {
  let t: TestApp;
  let clinic: TestClinic;
  const addresses = new ResolvedAddresses();

  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite', logStream: addresses.stream });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());

  it('when a client sends X-Forwarded-For and X-Forwarded-Proto, then neither is believed and plain HTTP is served (development)', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: CARRIERS,
      remoteAddress: OUTSIDER,
      headers: {
        accept: 'application/json',
        'x-api-key': clinic.apiKey,
        'x-forwarded-for': '192.0.2.9',
        'x-forwarded-proto': 'http',
      },
    });
    expect(response.statusCode).toBe(200);
    expect(addresses.of(String(response.headers['x-request-id']))).toBe(OUTSIDER);
  });
});
