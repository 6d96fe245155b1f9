import type { FastifyRequest } from 'fastify';
import { allows } from '../clinics/scopes.js';
import type { ReadContext } from '../context.js';
import { unauthorized } from '../errors.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { AccessTokenClaims } from './access-token.js';
import { scopesOf } from './oauth-client.service.js';
import { findOAuthClient } from './oauth-client.repository.js';

/**
 * The token of `Authorization: Bearer <token>` on a partner request ('' when the scheme comes alone),
 * or undefined when the request has no Bearer authorization (it then needs `x-api-key`).
 */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer(?:\s+(.*))?$/is.exec(header.trim());
  if (!match) return undefined;
  return match[1]?.trim() ?? '';
}

/**
 * Resolves a verified access token (access-token.ts) to the partner it acts for: one indexed query
 * for its client, on every request and without a cache, so that a revoked client's tokens are refused
 * on their very next use, on every instance (as a revoked key is). The identity carries the token's
 * scopes, which the scope guard enforces as it does a restricted key's.
 */
export async function authenticateAccessToken(ctx: ReadContext, claims: AccessTokenClaims): Promise<PartnerIdentity> {
  const row = await findOAuthClient(ctx.db, claims.clientId);
  if (!row || row.clinic_id !== claims.clinicId || row.environment !== claims.environment) {
    throw unauthorized('invalid access token');
  }
  if (row.revoked_at !== null) throw unauthorized('OAuth client has been revoked');
  const granted = scopesOf(row);
  return { clinicId: row.clinic_id, oauthClientId: row.id, scopes: claims.scopes.filter((scope) => allows(granted, scope)) };
}
