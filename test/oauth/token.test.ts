import { decodeJwt, decodeProtectedHeader, generateSecret, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';
import { assertion, assertionForm, basic, clientKeyPair, createClient, requestToken, type TestOAuthClient } from './support.js';

const START = Date.parse('2031-05-06T07:08:10.000Z');
const ISSUER = 'urn:partner-fulfillment-api:development';
const GRANT = { grant_type: 'client_credentials' };

describe.each(DIALECTS)('POST /oauth/token on %s', (dialect) => {
  const time = fakeClock(START);
  let t: TestApp;
  let clinic: TestClinic;
  let client: TestOAuthClient;
  /** A fresh client address per test: the brute-force counters of one test never reach another. */
  let address = 0;
  let from = '';

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    clinic = await t.createClinic();
    client = await createClient(t, clinic.clinicId, { scopes: ['orders:write', 'carriers:read'] });
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    time.set(START);
    from = `198.51.100.${++address}`;
  });

  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    requestToken(t, form, { headers, remoteAddress: from });

  describe('the client credentials grant', () => {
    it('when the client authenticates with HTTP Basic, then it gets a 15-minute Bearer token with its scopes, not stored by caches', async () => {
      const res = await token(GRANT, { authorization: basic(client.clientId, client.secret) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
        scope: 'orders:write carriers:read',
      });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.pragma).toBe('no-cache');
      expect(decodeProtectedHeader(res.body.access_token)).toMatchObject({ alg: 'HS256', typ: 'at+jwt' });
      const seconds = START / 1000;
      expect(decodeJwt(res.body.access_token)).toEqual({
        iss: ISSUER,
        aud: ISSUER,
        sub: client.clientId,
        client_id: client.clientId,
        clinic_id: clinic.clinicId,
        environment: 'development',
        scope: 'orders:write carriers:read',
        iat: seconds,
        exp: seconds + 900,
        jti: expect.any(String),
      });
    });

    it('when the client sends client_id and client_secret in the body, then it gets a token too', async () => {
      const res = await token({ ...GRANT, client_id: client.clientId, client_secret: client.secret });
      expect(res.status).toBe(200);
      expect(decodeJwt(res.body.access_token).sub).toBe(client.clientId);
    });

    it('when the request asks for a subset of the client\u2019s scopes, then the token has only those (write covers read)', async () => {
      const res = await token(
        { ...GRANT, scope: 'orders:read carriers:read' },
        { authorization: basic(client.clientId, client.secret) },
      );
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('orders:read carriers:read');
      expect(decodeJwt(res.body.access_token).scope).toBe('orders:read carriers:read');
    });

    it('when the secret and id are form-urlencoded inside HTTP Basic, then they are decoded before they are checked', async () => {
      const encoded = `Basic ${Buffer.from(`${client.clientId}:${encodeURIComponent(client.secret)}`).toString('base64')}`;
      expect((await token(GRANT, { authorization: encoded })).status).toBe(200);
    });
  });

  describe('private_key_jwt (RFC 7523)', () => {
    let keys: Awaited<ReturnType<typeof clientKeyPair>>;
    let jwtClient: string;

    beforeAll(async () => {
      keys = await clientKeyPair('ES256');
      const other = await clientKeyPair('EdDSA');
      jwtClient = (await createClient(t, clinic.clinicId, { scopes: ['patients:read'], jwks: { keys: [keys.jwk, other.jwk] } }))
        .clientId;
    });
    const sign = (options: { claims?: Record<string, unknown>; audience?: string; jti?: string } = {}) =>
      assertion(keys.privateKey, jwtClient, { now: time.now(), audience: options.audience ?? ISSUER, ...options });

    it('when the client signs an assertion with a registered key, then it gets a token', async () => {
      const res = await token(assertionForm(await sign()));
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('patients:read');
      expect(decodeJwt(res.body.access_token).sub).toBe(jwtClient);
    });

    it('when the assertion names the token endpoint as its audience, then it is accepted as well as the issuer', async () => {
      expect((await token(assertionForm(await sign({ audience: `${ISSUER}/oauth/token` })))).status).toBe(200);
    });

    it('when the assertion names the token endpoint’s URL as the client reached it (SMART backend services), then it is accepted; another host’s is not', async () => {
      const host = { host: 'fulfillment.example' };
      expect((await token(assertionForm(await sign({ audience: 'http://fulfillment.example/oauth/token' })), host)).status).toBe(
        200,
      );
      const elsewhere = await token(assertionForm(await sign({ audience: 'http://other.example/oauth/token' })), host);
      expect(elsewhere.status).toBe(401);
    });

    it('when the same assertion (same jti) is sent twice, then the second is invalid_client', async () => {
      const jwt = await sign();
      expect((await token(assertionForm(jwt))).status).toBe(200);
      const replay = await token(assertionForm(jwt));
      expect(replay.status).toBe(401);
      expect(replay.body).toEqual({ error: 'invalid_client', error_description: 'client assertion has been used before' });
    });

    it('when an assertion has expired, lives over 5 minutes, is issued in the future or names another audience, then invalid_client', async () => {
      const seconds = Math.floor(START / 1000);
      const refusals = [
        await sign({ claims: { iat: seconds - 120, exp: seconds - 60 } }),
        await sign({ claims: { exp: seconds + 3600 } }),
        await sign({ claims: { iat: seconds + 120 } }),
        await sign({ audience: 'https://another.example/oauth/token' }),
        await sign({ claims: { iss: client.clientId } }),
      ];
      for (const jwt of refusals) {
        const res = await token(assertionForm(jwt));
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('invalid_client');
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
    });

    it('when an assertion is signed with HS256 or not at all (alg none), or by a key not registered, then invalid_client', async () => {
      const seconds = Math.floor(START / 1000);
      const claims = { iss: jwtClient, sub: jwtClient, aud: ISSUER, iat: seconds, exp: seconds + 60, jti: 'j-1' };
      const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(await generateSecret('HS256'));
      const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
      const stranger = await clientKeyPair('ES256');
      const unregistered = await assertion(stranger.privateKey, jwtClient, { now: START, audience: ISSUER });
      for (const jwt of [hs256, none, unregistered]) {
        const res = await token(assertionForm(jwt));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'invalid_client', error_description: 'invalid client assertion' });
      }
    });

    it('when a secret client sends an assertion, or a private_key_jwt client a secret, then invalid_client', async () => {
      const forSecretClient = await assertion(keys.privateKey, client.clientId, { now: START, audience: ISSUER });
      expect((await token(assertionForm(forSecretClient))).body.error).toBe('invalid_client');
      const res = await token({ ...GRANT, client_id: jwtClient, client_secret: client.secret });
      expect(res.body.error).toBe('invalid_client');
    });
  });

  describe('errors (RFC 6749 §5.2), in their own shape', () => {
    it('when the secret is wrong with HTTP Basic, then 401 invalid_client with WWW-Authenticate: Basic', async () => {
      const res = await token(GRANT, { authorization: basic(client.clientId, `${client.secret.slice(0, -1)}x`) });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: 'invalid client credentials' });
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="oauth"/);
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('when the secret is wrong in the body, or the client unknown, then 401 invalid_client without a Basic challenge', async () => {
      for (const form of [
        { ...GRANT, client_id: client.clientId, client_secret: 'cs_dev_not-the-secret' },
        { ...GRANT, client_id: '00000000-0000-4000-8000-000000000000', client_secret: client.secret },
        { ...GRANT, client_id: 'not-a-uuid', client_secret: client.secret },
      ]) {
        const res = await token(form);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'invalid_client', error_description: 'invalid client credentials' });
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
    });

    it('when no client authentication is sent, then 401 invalid_client', async () => {
      const res = await token({ ...GRANT, client_id: client.clientId });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it('when the client is revoked, then invalid_client, after the secret is checked', async () => {
      const revoked = await createClient(t, clinic.clinicId, { scopes: ['orders:read'] });
      await t.operator.delete(`/api/admin/oauth-clients/${revoked.clientId}`);
      const res = await token(GRANT, { authorization: basic(revoked.clientId, revoked.secret) });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: 'client has been revoked' });
    });

    it('when the client or its secret is of the other environment, then invalid_client saying so', async () => {
      const production = await createClient(t, clinic.clinicId, { scopes: ['orders:read'], environment: 'production' });
      const res = await token(GRANT, { authorization: basic(production.clientId, production.secret) });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: 'invalid_client',
        error_description: 'this is a production client secret; this server is the development environment',
      });
    });

    it('when grant_type is missing, then invalid_request; when it is another grant, then unsupported_grant_type', async () => {
      const auth = { authorization: basic(client.clientId, client.secret) };
      const missing = await token({}, auth);
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('invalid_request');
      for (const grant of ['authorization_code', 'password', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer']) {
        const res = await token({ grant_type: grant }, auth);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('unsupported_grant_type');
      }
    });

    it('when a scope is not among the client\u2019s, or does not exist, then invalid_scope', async () => {
      for (const scope of ['patients:read', 'orders:write webhooks:write', 'orders:admin']) {
        const res = await token({ ...GRANT, scope }, { authorization: basic(client.clientId, client.secret) });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_scope');
      }
    });

    it('when a parameter is repeated, two authentication methods are used, or the body is JSON, then invalid_request', async () => {
      const repeated = await t.request('POST', '/oauth/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.clientId, client.secret) },
        payload: 'grant_type=client_credentials&scope=orders:read&scope=carriers:read',
        remoteAddress: from,
      });
      expect(repeated.status).toBe(400);
      expect(repeated.body).toEqual({ error: 'invalid_request', error_description: 'The parameter scope is repeated' });

      const twice = await token(
        { ...GRANT, client_id: client.clientId, client_secret: client.secret },
        { authorization: basic(client.clientId, client.secret) },
      );
      expect(twice.status).toBe(400);
      expect(twice.body.error).toBe('invalid_request');

      const json = await t.request('POST', '/oauth/token', {
        headers: { 'content-type': 'application/json' },
        body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret },
        remoteAddress: from,
      });
      expect(json.status).toBe(400);
      expect(json.body.error).toBe('invalid_request');
    });

    it('when the request has no body at all, then invalid_request', async () => {
      const res = await t.request('POST', '/oauth/token', {
        headers: { authorization: basic(client.clientId, client.secret) },
        remoteAddress: from,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('when the body is over 16 KiB, then 413 invalid_request', async () => {
      const res = await token({ ...GRANT, padding: 'x'.repeat(17 * 1024) });
      expect(res.status).toBe(413);
      expect(res.body.error).toBe('invalid_request');
    });

    it('when the partner API is called without a credential, then its refusal keeps the spec\u2019s envelope', async () => {
      const res = await t.request('GET', '/api/external/carriers');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    });
  });
});
