import type { FastifyReply, FastifyRequest } from 'fastify';
import { allows, isScope, type Scope } from '../clinics/scopes.js';
import type { AppContext } from '../context.js';
import { signAccessToken } from './access-token.js';
import { authenticateClient } from './client-auth.js';
import { scopesOf } from './oauth-client.service.js';
import { invalidRequest, OAuthError } from './oauth-errors.js';
import type { TokenRequest } from './oauth.schemas.js';
import { admitTokenAttempt } from './token-rate-limit.js';
import { clientCredentialsOf } from './token-request.js';

/** RFC 6749 §5.1's successful answer. */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/**
 * POST /oauth/token, the client credentials grant (RFC 6749 §4.4): the address's failures are
 * counted first, the grant type checked, the client's failures counted, the client authenticated
 * (secret or private_key_jwt), the requested scopes checked against the client's, and a token signed.
 * `addressBucket`: the caller's address as its failures are counted (http/client-address.ts `addressBucketOf`).
 */
export async function issueToken(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  form: TokenRequest,
  addressBucket: string,
): Promise<TokenAnswer> {
  const releaseAddress = await admitTokenAttempt(ctx, reply, { kind: 'address', id: addressBucket });
  if (form.grant_type === undefined) throw invalidRequest('grant_type is required (client_credentials)');
  if (form.grant_type !== 'client_credentials') {
    throw new OAuthError(
      'unsupported_grant_type',
      400,
      `grant_type ${form.grant_type.slice(0, 100)} is not supported: use client_credentials`,
    );
  }
  const credentials = clientCredentialsOf(request.headers.authorization, form);
  const releaseClient = await admitTokenAttempt(ctx, reply, { kind: 'client', id: credentials.clientId.slice(0, 100) });
  const client = await authenticateClient(ctx, credentials);
  await Promise.all([releaseAddress(), releaseClient()]);

  const scopes = grantedScopes(scopesOf(client), form.scope);
  const signed = await signAccessToken(ctx, {
    clientId: client.id,
    clinicId: client.clinic_id,
    environment: ctx.config.env,
    scopes,
  });
  return { access_token: signed.token, token_type: 'Bearer', expires_in: signed.expiresIn, scope: scopes.join(' ') };
}

/**
 * The scopes a token gets: the client's, or the subset the request names (space-separated, RFC 6749
 * §3.3; `orders:read` is within a client's `orders:write`). Anything else is `invalid_scope`.
 */
export function grantedScopes(clientScopes: readonly Scope[], requested: string | undefined): Scope[] {
  if (requested === undefined || requested.trim() === '') return [...clientScopes];
  const names = [...new Set(requested.split(' ').filter((name) => name !== ''))];
  const outside = names.find((name) => !isScope(name) || !allows(clientScopes, name));
  if (outside !== undefined) {
    throw new OAuthError(
      'invalid_scope',
      400,
      `scope ${outside.slice(0, 100)} is not among this client\u2019s scopes (${clientScopes.join(' ')})`,
    );
  }
  return names as Scope[];
}
