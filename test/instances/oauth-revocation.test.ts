import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import {
  databaseUrlOf,
  FORWARDED_HTTPS,
  killServerProcesses,
  PRODUCTION_BEHIND_PROXY,
  runAdminCli,
  startServerProcess,
  type ServerProcess,
} from '../helpers/server-process.js';
import { assertion, assertionForm, basic, clientKeyPair } from '../oauth/support.js';
import { call, createPartner, OPERATOR_TOKEN, sharedRedisUrl } from './support.js';

const redisUrl = inject('redisUrl');
const CARRIERS = '/api/external/carriers';

afterAll(killServerProcesses);

/** POST /oauth/token over HTTP, as a partner's OAuth library sends it (behind the test's "proxy", over HTTPS). */
async function token(
  server: ServerProcess,
  clientId: string,
  secret: string,
  options: { https?: boolean } = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      ...(options.https === false ? {} : FORWARDED_HTTPS),
      authorization: basic(clientId, secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return { status: response.status, body: await response.json() };
}

async function withToken(server: ServerProcess, accessToken: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.baseUrl}${CARRIERS}`, {
    headers: { ...FORWARDED_HTTPS, authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });
  return { status: response.status, body: await response.json() };
}

/**
 * Every request with an access token looks its client up (no per-instance cache), and every instance
 * derives the same signing key from the shared DATA_ENCRYPTION_KEY: a token issued by one instance
 * works on the other, and a revocation committed anywhere is seen by both on their next request.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('OAuth clients across instances', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let first: ServerProcess;
  let second: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    env = {
      ...PRODUCTION_BEHIND_PROXY,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATABASE_URL: databaseUrlOf(database),
      RUN_WORKER: 'false',
      RATE_LIMIT_PER_MINUTE: '1000',
      ...(redisUrl ? { REDIS_URL: sharedRedisUrl(redisUrl) } : {}),
    };
    [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    // The first suite of a run builds the server (tsc and the console): longer than a hook's 30 s.
  }, 180_000);
  afterAll(async () => {
    await killServerProcesses();
    await database.drop();
  });

  it('when a client is revoked through one instance\u2019s operator API, then its token, issued by the other, is refused by both', async () => {
    const { clinicId } = await createPartner(first);
    const created = await call(first, 'POST', `/api/admin/clinics/${clinicId}/oauth-clients`, {
      operator: true,
      body: { scopes: ['carriers:read'] },
    });
    expect(created.status).toBe(200);
    const { client_id: clientId, client_secret: secret } = created.body.data;
    expect(secret).toMatch(/^cs_prod_/);

    const issued = await token(second, clientId, secret);
    expect(issued.status).toBe(200);
    const accessToken: string = issued.body.access_token;
    for (const server of [first, second]) expect((await withToken(server, accessToken)).status).toBe(200);

    expect((await call(first, 'DELETE', `/api/admin/oauth-clients/${clientId}`, { operator: true })).status).toBe(200);

    for (const server of [second, first]) {
      const refused = await withToken(server, accessToken);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: 'Unauthorized: OAuth client has been revoked' });
      expect((await token(server, clientId, secret)).body.error).toBe('invalid_client');
    }
  });

  it('when a client is created and revoked with the command line, then both running instances see it at once', async () => {
    const { clinicId } = await createPartner(second);
    const cliEnv = { ...env };
    const created = await runAdminCli(['create-oauth-client', '--clinic', clinicId, '--scopes', 'carriers:read,orders:read'], {
      env: cliEnv,
    });
    expect(created).toMatchObject({ clinic_id: clinicId, environment: 'production', scopes: ['carriers:read', 'orders:read'] });
    const accessToken: string = (await token(first, created.client_id, created.client_secret)).body.access_token;
    expect((await withToken(second, accessToken)).status).toBe(200);

    const listed = await runAdminCli(['list-oauth-clients', '--clinic', clinicId], { env: cliEnv });
    expect(listed.oauth_clients).toEqual([expect.objectContaining({ client_id: created.client_id, revoked_at: null })]);
    expect(JSON.stringify(listed)).not.toContain(created.client_secret);

    const revoked = await runAdminCli(['revoke-oauth-client', '--client-id', created.client_id], { env: cliEnv });
    expect(revoked).toMatchObject({ client_id: created.client_id, revoked_at: expect.any(String) });
    for (const server of [first, second]) expect((await withToken(server, accessToken)).status).toBe(401);
  });

  it('when a client is created with --jwks-file, then it has no secret and authenticates with private_key_jwt', async () => {
    const { clinicId } = await createPartner(first);
    const folder = mkdtempSync(path.join(tmpdir(), 'jwks-'));
    try {
      const file = path.join(folder, 'jwks.json');
      const keys = await clientKeyPair();
      writeFileSync(file, JSON.stringify({ keys: [keys.jwk] }));
      const created = await runAdminCli(
        ['create-oauth-client', '--clinic', clinicId, '--scopes', 'orders:read', '--jwks-file', file],
        {
          env,
        },
      );
      expect(created).toMatchObject({ client_secret: null, token_endpoint_auth_method: 'private_key_jwt' });

      const jwt = await assertion(keys.privateKey, created.client_id, {
        now: Date.now(),
        audience: 'urn:partner-fulfillment-api:production/oauth/token',
      });
      const response = await fetch(`${second.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { ...FORWARDED_HTTPS, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(assertionForm(jwt)).toString(),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { scope: string }).scope).toBe('orders:read');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('when a token is asked for over plain HTTP behind the proxy, then 403 invalid_request: HTTPS is required', async () => {
    const refused = await token(first, '00000000-0000-4000-8000-000000000000', 'cs_prod_x', { https: false });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/^HTTPS is required/) });
  });
});
