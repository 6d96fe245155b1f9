import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import type { AppContext } from '../context.js';
import type { Environment } from '../config.js';
import { unauthorized } from '../errors.js';
import { isScope, type Scope } from '../clinics/scopes.js';
import { newId } from '../shared/ids.js';

/**
 * The access tokens of POST /oauth/token: JWTs (RFC 9068's `at+jwt`) signed with HS256 under a key
 * derived from the deployment's DATA_ENCRYPTION_KEY (HKDF, secrets/keyring.ts), so that every
 * instance signs and verifies with the same key and nothing new is provisioned. The header's `kid`
 * is the data key's id: after a data key rotation, tokens signed under the previous key still verify
 * while it is in DATA_ENCRYPTION_KEY_PREVIOUS (a token lives 15 minutes).
 *
 * @see docs/oauth.md
 */

/** How long an access token lives: 15 minutes. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 15 * 60;
/** Clock skew tolerated between instances for `exp` and `iat`. */
export const CLOCK_LEEWAY_SECONDS = 5;
/** What the derived key is for (the HKDF info): another purpose never gets the same key. */
const SIGNING_PURPOSE = 'partner-fulfillment oauth access token signing v1';
const TOKEN_TYPE = 'at+jwt';
/** Longer than any token this server signs (about 600 characters): anything longer is not one. */
export const MAX_ACCESS_TOKEN_LENGTH = 4096;

type TokenContext = Pick<AppContext, 'keyring' | 'config' | 'clock'>;

/** What an access token says, once its signature and claims are checked. */
export interface AccessTokenClaims {
  readonly clientId: string;
  readonly clinicId: string;
  readonly environment: Environment;
  readonly scopes: readonly Scope[];
}

export interface SignedAccessToken {
  readonly token: string;
  readonly expiresIn: number;
}

/** Signs an access token for a client of a clinic, with the scopes it was granted. */
export async function signAccessToken(ctx: TokenContext, claims: AccessTokenClaims): Promise<SignedAccessToken> {
  const signing = ctx.keyring.derive(SIGNING_PURPOSE);
  if (!signing) throw new Error('The current data key is always in the keyring');
  const now = Math.floor(ctx.clock().getTime() / 1000);
  const token = await new SignJWT({
    scope: claims.scopes.join(' '),
    client_id: claims.clientId,
    clinic_id: claims.clinicId,
    environment: claims.environment,
  })
    .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYPE, kid: signing.keyId })
    .setIssuer(ctx.config.oauthIssuer)
    .setAudience(ctx.config.oauthIssuer)
    .setSubject(claims.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + ACCESS_TOKEN_LIFETIME_SECONDS)
    .setJti(newId())
    .sign(signing.key);
  return { token, expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS };
}

const invalidToken = () => unauthorized('invalid access token');

/**
 * Checks an access token without asking the database: its form, its signature (HS256 under one of
 * the configured data keys; `alg: none` and every other algorithm refused), `typ`, `iss`, `aud`,
 * `exp` and `iat` (neither past nor future beyond a few seconds), its claims, and its environment.
 * Every refusal is a 401 "Unauthorized: …" that says no more than an API key's would.
 */
export async function verifyAccessToken(ctx: TokenContext, token: string): Promise<AccessTokenClaims> {
  // An API key sent as a Bearer token (a common first try): say where it goes, which costs no round trip.
  if (/^(dev|prod)_/.test(token)) {
    throw unauthorized(
      'invalid access token; an API key (dev_… or prod_…) goes in the x-api-key header, not Authorization: Bearer',
    );
  }
  if (token.length > MAX_ACCESS_TOKEN_LENGTH) throw invalidToken();
  let kid: unknown;
  let claimed: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
    claimed = decodeJwt(token).environment;
  } catch {
    throw invalidToken();
  }
  // As for keys: a token of the other environment is told so (its claim is in the client's own hands).
  if ((claimed === 'development' || claimed === 'production') && claimed !== ctx.config.env) {
    throw unauthorized(`this is a ${claimed} access token; this server is the ${ctx.config.env} environment`);
  }
  const verifying = typeof kid === 'string' ? ctx.keyring.derive(SIGNING_PURPOSE, kid) : null;
  if (!verifying) throw invalidToken();
  const now = ctx.clock();
  let payload;
  try {
    ({ payload } = await jwtVerify(token, verifying.key, {
      algorithms: ['HS256'],
      typ: TOKEN_TYPE,
      issuer: ctx.config.oauthIssuer,
      audience: ctx.config.oauthIssuer,
      currentDate: now,
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      requiredClaims: ['iat', 'exp', 'jti', 'sub'],
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw unauthorized('access token has expired');
    throw invalidToken();
  }
  const { sub, iat, scope, clinic_id: clinicId, environment } = payload;
  if (typeof iat !== 'number' || iat > now.getTime() / 1000 + CLOCK_LEEWAY_SECONDS) throw invalidToken();
  if (typeof sub !== 'string' || typeof clinicId !== 'string' || typeof scope !== 'string') throw invalidToken();
  if (environment !== ctx.config.env) throw invalidToken();
  const scopes = scope.split(' ');
  if (!scopes.every(isScope)) throw invalidToken();
  return { clientId: sub, clinicId, environment: ctx.config.env, scopes };
}
