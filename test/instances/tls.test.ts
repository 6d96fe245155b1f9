import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls, { type SecureVersion } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../helpers/self-signed.js';
import { killServerProcesses, spawnServerProcess, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * TLS and proxies for real (issue 8, item 4): the built server as a child process with a
 * certificate made for this run, called by real TLS clients.
 */
const OPERATOR_TOKEN = 'tls-test-operator-token-0123456789';
const LIMIT = 3;

const dir = mkdtempSync(path.join(tmpdir(), 'fulfillment-tls-'));
let certFile: string;
let keyFile: string;
let cert: Buffer;
let key: Buffer;

beforeAll(async () => {
  ({ certFile, keyFile, cert, key } = await createSelfSignedCertificate(dir));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ClientVersions {
  minVersion: SecureVersion;
  maxVersion: SecureVersion;
  /** OpenSSL 3 refuses TLS 1.1 at its default security level: a TLS 1.1 client must lower it. */
  ciphers?: string;
}

/** A TLS handshake that trusts only our certificate; resolves with the protocol agreed, or the error code. */
function handshake(port: number, versions: ClientVersions): Promise<{ protocol: string | null } | { error: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: cert, ...versions }, () => {
      const protocol = socket.getProtocol();
      socket.destroy();
      resolve({ protocol });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

/** An HTTPS request that trusts only our certificate. */
function httpsGet(
  url: string,
  headers: Record<string, string> = {},
  versions?: ClientVersions,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ca: cert, servername: 'localhost', headers, ...versions, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) }));
    });
    request.on('error', reject);
  });
}

const portOf = (server: ServerProcess) => Number(new URL(server.baseUrl).port);

describe('a production server with TLS_CERT_FILE and TLS_KEY_FILE', { timeout: 60_000 }, () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess({
      FULFILLMENT_ENV: 'production',
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATABASE_URL: path.join(dir, 'tls.sqlite'),
      TLS_CERT_FILE: certFile,
      TLS_KEY_FILE: keyFile,
      // The proxies are elsewhere: this test's own address (127.0.0.1) is not one of them.
      TRUST_PROXY: '10.0.0.0/8',
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      // Node's and OpenSSL's own defaults already refuse TLS 1.1 (minimum TLS 1.2, security level 1):
      // lowered for this process, only the server's explicit minimum stands between a TLS 1.1 client
      // and a handshake, so the refusal below proves that minimum, not the defaults.
      NODE_OPTIONS: '--tls-min-v1.0 --tls-cipher-list=DEFAULT@SECLEVEL=0',
    });
  }, 60_000);
  afterAll(killServerProcesses);

  it('when it starts, then its banner shows an https:// address', () => {
    expect(server.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.stdout()).toContain(`API reference: ${server.baseUrl}/docs`);
  });

  it.each([['TLSv1.2' as const], ['TLSv1.3' as const]])(
    'when a client speaks only %s, then the handshake succeeds and the API answers',
    async (version) => {
      expect(await handshake(portOf(server), { minVersion: version, maxVersion: version })).toEqual({ protocol: version });
      const health = await httpsGet(`${server.baseUrl}/healthz`, {}, { minVersion: version, maxVersion: version });
      expect(health.status).toBe(200);
    },
  );

  it('when a client that can speak TLS 1.1 offers only TLS 1.1, then the server refuses the handshake', async () => {
    const tls11: ClientVersions = { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' };
    // First prove the client really speaks TLS 1.1, to a permissive server with the same certificate.
    const permissive = tls.createServer({ cert, key, ...tls11 }, (socket) => socket.end());
    await new Promise<void>((resolve) => permissive.listen(0, '127.0.0.1', resolve));
    try {
      expect(await handshake((permissive.address() as AddressInfo).port, tls11)).toEqual({ protocol: 'TLSv1.1' });
    } finally {
      permissive.close();
    }

    const refused = await handshake(portOf(server), tls11);
    expect(refused).toHaveProperty('error');
    expect((refused as { error: string }).error).toMatch(/PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL/);
  });

  it('when a client that is not a listed proxy forges X-Forwarded-For, then the per-address limit counts its real address', async () => {
    const remaining: unknown[] = [];
    for (const forged of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
      const res = await httpsGet(`${server.baseUrl}/api/external/carriers`, {
        accept: 'application/json',
        'x-forwarded-for': forged,
      });
      remaining.push(`${res.status}:${String(res.headers['x-ratelimit-remaining'])}`);
    }
    expect(remaining).toEqual(['401:2', '401:1', '401:0', '429:0']);
  });

  it('when a direct client over TLS sends X-Forwarded-Proto http, then it is not believed: its connection is HTTPS', async () => {
    const res = await httpsGet(`${server.baseUrl}/api/admin/clinics`, {
      authorization: `Bearer ${OPERATOR_TOKEN}`,
      'x-forwarded-proto': 'http',
    });
    expect(res.status).toBe(200);
  });
});

describe('starting in production on plain HTTP', { timeout: 60_000 }, () => {
  afterEach(killServerProcesses);
  const production = (name: string) => ({
    FULFILLMENT_ENV: 'production',
    ADMIN_TOKEN: OPERATOR_TOKEN,
    DATABASE_URL: path.join(dir, `${name}.sqlite`),
  });

  it('when neither TLS nor TRUST_PROXY is set, then the server exits non-zero saying how to serve HTTPS, before opening the database', async () => {
    const server = await spawnServerProcess(production('plain'));
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain(
      'production serves HTTPS: set TLS_CERT_FILE and TLS_KEY_FILE, or TRUST_PROXY when a proxy terminates TLS',
    );
    expect(existsSync(path.join(dir, 'plain.sqlite'))).toBe(false);
  });

  it('when the certificate file cannot be read, then the server exits non-zero naming TLS_CERT_FILE', async () => {
    const server = await spawnServerProcess({
      ...production('unreadable'),
      TLS_CERT_FILE: path.join(dir, 'missing.pem'),
      TLS_KEY_FILE: keyFile,
    });
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain(`TLS_CERT_FILE: cannot read ${path.join(dir, 'missing.pem')}`);
  });

  it('when TRUST_PROXY names the proxy, then it starts, and requests through the proxy need X-Forwarded-Proto https', async () => {
    const server = await startServerProcess({ ...production('proxied'), TRUST_PROXY: '127.0.0.1' });
    expect(server.baseUrl).toMatch(/^http:\/\//);
    const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
    const viaHttps = await fetch(`${server.baseUrl}/api/admin/clinics`, {
      headers: { ...operator, 'x-forwarded-proto': 'https' },
    });
    expect(viaHttps.status).toBe(200);
    const viaHttp = await fetch(`${server.baseUrl}/api/admin/clinics`, { headers: { ...operator, 'x-forwarded-proto': 'http' } });
    expect(viaHttp.status).toBe(403);
    expect(((await viaHttp.json()) as { error: { message: string } }).error.message).toMatch(/^HTTPS is required/);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });
});
