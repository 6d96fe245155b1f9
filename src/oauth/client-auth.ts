import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { runChange } from '../changes/run-change.js';
import { hashApiKey, hashesEqual } from '../clinics/api-key.js';
import type { AppContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import { CLOCK_LEEWAY_SECONDS } from './access-token.js';
import { environmentOfSecret } from './client-secret.js';
import { invalidClient } from './oauth-errors.js';
import * as repo from './oauth-client.repository.js';
import type { OAuthClientTable } from './oauth.tables.js';
import type { ClientCredentials } from './token-request.js';

type AuthContext = Pick<AppContext, 'db' | 'dialect' | 'clock' | 'config' | 'outbox'>;

/** The longest a client assertion may live (`exp` at most this far ahead): RFC 7523 asks for short-lived ones. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 5 * 60;
/** What a client assertion may be signed with: public-key algorithms only (no `none`, no HS*: the server holds no client's secret key). */
export const ASSERTION_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Compared against when the client does not exist, so that an unknown id takes as long as a wrong secret. */
const NO_CLIENT_HASH = hashApiKey('no such client');

/**
 * Authenticates the client of a token request (RFC 6749 §2.3, RFC 7523 §3): its secret, compared in
 * constant time with the stored hash, or its signed assertion, verified with its registered keys and
 * whose `jti` is then recorded so that it cannot be used twice, on any instance. Every refusal is
 * `invalid_client` and says no more than an API key's 401 would (which part of a secret was wrong, never).
 * An assertion's `aud` is the issuer, the issuer followed by `/oauth/token`, or `tokenEndpoint`: the
 * token endpoint's URL as /.well-known/smart-configuration tells this caller (oauth/smart-configuration.ts).
 */
export async function authenticateClient(
  ctx: AuthContext,
  credentials: ClientCredentials,
  tokenEndpoint: string,
): Promise<OAuthClientTable> {
  return credentials.method === 'jwt'
    ? authenticateAssertion(ctx, credentials.clientId, credentials.assertion, tokenEndpoint)
    : authenticateSecret(ctx, credentials);
}

async function authenticateSecret(
  ctx: AuthContext,
  credentials: ClientCredentials & { secret: string },
): Promise<OAuthClientTable> {
  const basic = credentials.method === 'basic';
  const claimed = environmentOfSecret(credentials.secret);
  if (claimed === null || credentials.secret.length > 200) throw invalidClient('invalid client credentials', basic);
  if (claimed !== ctx.config.env) {
    throw invalidClient(`this is a ${claimed} client secret; this server is the ${ctx.config.env} environment`, basic);
  }
  const row = UUID.test(credentials.clientId) ? await repo.findOAuthClient(ctx.db, credentials.clientId) : undefined;
  const matches = hashesEqual(row?.secret_hash ?? NO_CLIENT_HASH, hashApiKey(credentials.secret));
  if (!row || row.secret_hash === null || !matches) throw invalidClient('invalid client credentials', basic);
  return usable(ctx, row, basic);
}

async function authenticateAssertion(
  ctx: AuthContext,
  clientId: string,
  assertion: string,
  tokenEndpoint: string,
): Promise<OAuthClientTable> {
  const row = UUID.test(clientId) ? await repo.findOAuthClient(ctx.db, clientId) : undefined;
  if (!row || row.jwks === null) throw invalidClient('invalid client assertion', false);
  const now = ctx.clock();
  const issuer = ctx.config.oauthIssuer;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(JSON.parse(row.jwks) as JSONWebKeySet), {
      algorithms: ASSERTION_ALGORITHMS,
      issuer: row.id,
      subject: row.id,
      // SMART backend services (and RFC 7523 §3) name the token endpoint's URL, the one discovery advertises.
      audience: [...new Set([issuer, `${issuer}/oauth/token`, tokenEndpoint])],
      currentDate: now,
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      requiredClaims: ['exp', 'jti'],
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw invalidClient('client assertion has expired', false);
    throw invalidClient('invalid client assertion', false);
  }
  const seconds = now.getTime() / 1000;
  const { exp = 0, iat, jti } = payload;
  if (exp > seconds + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_LEEWAY_SECONDS) {
    throw invalidClient(`client assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} seconds`, false);
  }
  if (iat !== undefined && iat > seconds + CLOCK_LEEWAY_SECONDS)
    throw invalidClient('client assertion is issued in the future', false);
  if (typeof jti !== 'string' || jti === '' || jti.length > 200) throw invalidClient('invalid client assertion', false);
  const client = usable(ctx, row, false);
  await recordAssertion(ctx, row.id, jti, new Date(exp * 1000).toISOString());
  return client;
}

/** An authenticated client may still be revoked, or of the other environment. */
function usable(ctx: AuthContext, row: OAuthClientTable, basic: boolean): OAuthClientTable {
  if (row.revoked_at !== null) throw invalidClient('client has been revoked', basic);
  if (row.environment !== ctx.config.env) {
    throw invalidClient(`this is a ${row.environment} client; this server is the ${ctx.config.env} environment`, basic);
  }
  return row;
}

/** Records an assertion's `jti` until it expires (forgetting the client's expired ones); a replay hits the primary key. */
async function recordAssertion(ctx: AuthContext, clientId: string, jti: string, expiresAt: string): Promise<void> {
  try {
    await runChange(ctx, null, (change) => {
      change.write(
        repo.expiredAssertionsDeletion(change, clientId, change.at),
        repo.assertionInsert(change, { client_id: clientId, jti, expires_at: expiresAt }),
      );
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') throw invalidClient('client assertion has been used before', false);
    throw error;
  }
}
