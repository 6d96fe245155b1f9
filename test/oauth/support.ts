import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Scope } from '../../src/clinics/scopes.js';
import { JWT_BEARER_ASSERTION } from '../../src/oauth/token-request.js';
import type { Reply, TestApp } from '../helpers/test-app.js';

/** The OAuth side of a test: clients through the operator API, tokens through POST /oauth/token. */

export const TOKEN = '/oauth/token';
/** Every scope: a client with these may do what a full-access key may. */
export const FULL: Scope[] = [
  'practitioners:write',
  'patients:write',
  'orders:write',
  'refills:write',
  'carriers:read',
  'webhooks:write',
  'formulary:read',
];

export interface TestOAuthClient {
  clientId: string;
  secret: string;
}

/** Creates a client through the operator API; answers its id and secret. */
export async function createClient(
  t: TestApp,
  clinicId: string,
  body: { scopes: Scope[]; environment?: string; jwks?: { keys: JWK[] } } = { scopes: FULL },
): Promise<TestOAuthClient> {
  const res = await t.operator.post(`/api/admin/clinics/${clinicId}/oauth-clients`, body);
  if (res.status !== 200) throw new Error(`client not created: ${JSON.stringify(res.body)}`);
  return { clientId: res.body.data.client_id, secret: res.body.data.client_secret };
}

/** `Authorization: Basic …` as RFC 6749 §2.3.1 writes it (each part form-urlencoded first). */
export function basic(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

/** A form-encoded token request, with whatever headers the test adds. */
export function requestToken(
  t: TestApp,
  form: Record<string, string>,
  options: { headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<Reply> {
  return t.request('POST', TOKEN, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    payload: new URLSearchParams(form).toString(),
    ...(options.remoteAddress !== undefined ? { remoteAddress: options.remoteAddress } : {}),
  });
}

/** An access token for a client with a secret (HTTP Basic); fails the test otherwise. */
export async function tokenFor(t: TestApp, client: TestOAuthClient, scope?: string): Promise<string> {
  const res = await requestToken(
    t,
    { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
    { headers: { authorization: basic(client.clientId, client.secret) } },
  );
  if (res.status !== 200) throw new Error(`no token: ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

/** A partner call with an access token instead of a key. */
export function bearer(t: TestApp, token: string) {
  const headers = (body: boolean): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    accept: 'application/json',
    ...(body ? { 'content-type': 'application/json' } : {}),
  });
  return {
    get: (url: string) => t.request('GET', url, { headers: headers(false) }),
    post: (url: string, body?: unknown) => t.request('POST', url, { headers: headers(body !== undefined), body }),
  };
}

/** A key pair of a private_key_jwt client: the public half to register, the private half to sign. */
export async function clientKeyPair(alg: 'ES256' | 'EdDSA' | 'RS256' = 'ES256'): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: randomUUID(), alg, use: 'sig' } };
}

/**
 * A client assertion (RFC 7523 §3) for `clientId`, valid at `now` for 60 seconds; `claims` and
 * `header` override or add (e.g. `{ exp: … }`, `{ alg: 'ES256' }`).
 */
export async function assertion(
  privateKey: CryptoKey,
  clientId: string,
  options: { now: number; audience: string; claims?: Record<string, unknown>; alg?: string; jti?: string },
): Promise<string> {
  const seconds = Math.floor(options.now / 1000);
  return new SignJWT({
    iss: clientId,
    sub: clientId,
    aud: options.audience,
    iat: seconds,
    exp: seconds + 60,
    jti: options.jti ?? randomUUID(),
    ...options.claims,
  })
    .setProtectedHeader({ alg: options.alg ?? 'ES256' })
    .sign(privateKey);
}

/** The form of a private_key_jwt token request. */
export const assertionForm = (jwt: string): Record<string, string> => ({
  grant_type: 'client_credentials',
  client_assertion_type: JWT_BEARER_ASSERTION,
  client_assertion: jwt,
});
