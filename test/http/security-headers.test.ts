import { createHash } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_FAILURE_LIMIT } from '../../src/http/operator-guard.js';
import { DOCS_CSP } from '../../src/http/security-headers.js';
import { OPERATOR_TOKEN, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Security headers on every answer (issue 9, item 6): whoever writes it (a route, a guard, the error
 * handler, the not-found handler, the router before any hook, Node's parser), it is not to be cached
 * and not to be sniffed or referred; /docs keeps its static assets cacheable and gets a strict CSP.
 */
const MIB = 1024 * 1024;
const RATE_LIMIT = 3;
const OPERATOR = { authorization: `Bearer ${OPERATOR_TOKEN}` };
const PATIENT = '/api/external/patient';

type Headers = Record<string, string | string[] | number | undefined>;

function expectSecurityHeaders(headers: Headers, where: string): void {
  expect(headers['cache-control'], where).toBe('no-store');
  expect(headers['x-content-type-options'], where).toBe('nosniff');
  expect(headers['referrer-policy'], where).toBe('no-referrer');
  expect(headers['content-security-policy'], where).toBe("default-src 'none';frame-ancestors 'none'");
}

interface Case {
  name: string;
  method?: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers?: (clinic: TestClinic) => Record<string, string>;
  payload?: string;
  status: number;
  /** Requests sent first, from the same address with the same headers (to reach a limit). */
  before?: number;
}

const partner = (clinic: TestClinic) => ({ 'x-api-key': clinic.apiKey, accept: 'application/json' });
const partnerJson = (clinic: TestClinic) => ({ ...partner(clinic), 'content-type': 'application/json' });

const CASES: Case[] = [
  { name: 'a partner read', url: '/api/external/carriers', headers: partner, status: 200 },
  { name: 'a partner without a key', url: '/api/external/carriers', status: 401 },
  { name: 'a partner over its limit', url: '/api/external/carriers', headers: partner, status: 429, before: RATE_LIMIT },
  { name: 'malformed JSON', method: 'POST', url: PATIENT, headers: partnerJson, payload: '{"first_name": ', status: 400 },
  {
    name: 'a body over 1 MiB',
    method: 'POST',
    url: PATIENT,
    headers: partnerJson,
    payload: `{"notes":"${'a'.repeat(MIB)}"}`,
    status: 413,
  },
  {
    name: 'a broken percent-escape (refused by the router, before any hook)',
    url: '/api/external/orders/%zz',
    headers: partner,
    status: 400,
  },
  { name: 'a method the route does not have', method: 'DELETE', url: '/api/external/carriers', headers: partner, status: 405 },
  { name: 'an unknown route', url: '/api/external/nothing-here', headers: partner, status: 404 },
  { name: 'an unknown route outside the APIs', url: '/nothing-here', status: 404 },
  { name: 'an operator read', url: '/api/admin/clinics', headers: () => OPERATOR, status: 200 },
  {
    name: 'an operator with a wrong token',
    url: '/api/admin/clinics',
    headers: () => ({ authorization: 'Bearer wrong' }),
    status: 401,
  },
  {
    name: 'an address past its failed operator authentications',
    url: '/api/admin/clinics',
    headers: () => ({ authorization: 'Bearer wrong' }),
    status: 429,
    before: OPERATOR_FAILURE_LIMIT,
  },
  { name: 'the metrics', url: '/metrics', headers: () => OPERATOR, status: 200 },
  { name: 'the metrics without the token', url: '/metrics', status: 401 },
  { name: 'the liveness probe', url: '/healthz', status: 200 },
  { name: 'the readiness probe', url: '/readyz', status: 200 },
  { name: 'the OpenAPI document', url: '/openapi.json', status: 200 },
];

describe.each(DIALECTS)('security headers on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  /** A fresh client address per case, so that the limits reached by one case do not leak into another. */
  let address = 0;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: { RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) } });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());

  it.each(CASES)('when the answer is $name ($status), then it carries the security headers', async (c) => {
    const remoteAddress = `203.0.113.${++address}`;
    // A key of its own: the partner limit is low, so that a case can reach it.
    const caller = await t.createClinic();
    const request = {
      method: c.method ?? 'GET',
      url: c.url,
      headers: c.headers?.(caller) ?? {},
      remoteAddress,
      ...(c.payload === undefined ? {} : { payload: c.payload }),
    };
    for (let i = 0; i < (c.before ?? 0); i++) await t.app.inject(request);
    const response = await t.app.inject(request);
    expect(response.statusCode).toBe(c.status);
    expectSecurityHeaders(response.headers, c.name);
  });

  it('when any API answer is written, then helmet also forbids framing and asks for HTTPS', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/external/carriers', headers: partner(clinic) });
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('security headers of /docs, and on the wire', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.close());

  it('when the reference page is opened, then it has the strict CSP: no inline script, nothing from elsewhere, no framing', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(DOCS_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https:|\*/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    // What the page loads is all allowed by 'self': relative URLs, no inline <script> body.
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>\s*\S/);
    for (const src of page.body.matchAll(/(?:src|href)="([^"]+)"/g)) expect(src[1]).toMatch(/^\.\/static\//);
  });

  it('when the reference page\u2019s assets are fetched, then they load under the same CSP and stay cacheable (ETag, no no-store)', async () => {
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-initializer.js', 'favicon-32x32.png']) {
      const url = `/docs/static/${asset}`;
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'] ?? '', url).not.toMatch(/no-store/);
      expect(response.headers['content-security-policy'], url).toBe(DOCS_CSP);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
    const css = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(css.headers.etag).toBeDefined();
    const again = await t.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui.css',
      headers: { 'if-none-match': String(css.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it('when swagger-ui inserts its inline <style> elements, then the CSP allows each by its digest (nothing else inline)', async () => {
    const styles: string[] = [];
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']) {
      const script = (await t.app.inject({ method: 'GET', url: `/docs/static/${asset}` })).body;
      for (const match of script.matchAll(/createElement\("style",null,"((?:[^"\\]|\\.)*)"\)/g))
        styles.push(JSON.parse(`"${match[1] ?? ''}"`) as string);
    }
    expect(styles.length).toBeGreaterThan(0);
    for (const style of styles) {
      expect(DOCS_CSP).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    }
  });

  it('when an answer travels over a real connection, then the headers are on the wire', async () => {
    for (const [url, status] of [
      ['/healthz', 200],
      ['/api/external/carriers', 401],
    ] as const) {
      const response = await fetch(`http://127.0.0.1:${port}${url}`, { headers: { accept: 'application/json' } });
      expect(response.status, url).toBe(status);
      expectSecurityHeaders(Object.fromEntries(response.headers), url);
    }
  });

  it('when a request is not even valid HTTP (answered on the raw socket), then the answer carries the headers too', async () => {
    const answer = await rawExchange(port, 'GARBAGE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
    expect(head).toContain('\r\ncache-control: no-store\r\n');
    expect(head).toContain('\r\nx-content-type-options: nosniff\r\n');
    expect(head).toContain('\r\nreferrer-policy: no-referrer\r\n');
  });
});

describe('security headers while the server closes', () => {
  it('when a request arrives on an open connection after the close started, then its 503 carries the headers', async () => {
    const t = await TestApp.start({ dialect: 'sqlite' });
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      let serverSide: net.Socket | undefined;
      t.app.server.once('connection', (socket: net.Socket) => (serverSide = socket));
      const socket = net.connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const write = async (text: string, total: number) => {
        socket.write(text);
        // The server's parser reads natively: wait until it has read every byte.
        while ((serverSide?.bytesRead ?? 0) < total) await new Promise((resolve) => setImmediate(resolve));
      };
      const start = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n';
      await write(start, start.length);
      const closed = t.app.close();
      while (t.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
      await write('\r\n', start.length + 2);

      const answer = (await ended).toLowerCase();
      expect(answer).toMatch(/^http\/1\.1 503 /);
      expect(answer).toContain('\r\ncache-control: no-store\r\n');
      expect(answer).toContain('\r\nx-content-type-options: nosniff\r\n');
      expect(answer).toContain('\r\nreferrer-policy: no-referrer\r\n');
      await closed;
    } finally {
      await t.close();
    }
  });
});

/** Sends raw bytes and resolves with everything the server wrote before it closed the connection. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(received));
  });
}
