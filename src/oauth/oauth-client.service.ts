import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { runChange } from '../changes/run-change.js';
import { hashApiKey } from '../clinics/api-key.js';
import { getClinic } from '../clinics/clinic.service.js';
import { isScope, type Scope } from '../clinics/scopes.js';
import type { Environment } from '../config.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { newId } from '../shared/ids.js';
import { generateClientSecret } from './client-secret.js';
import { checkedJwks } from './jwks.js';
import * as repo from './oauth-client.repository.js';
import type {
  CreateOAuthClientInput,
  IssuedOAuthClientView,
  OAuthClientSummaryView,
  RevokedOAuthClientView,
} from './oauth.schemas.js';
import type { OAuthClientTable } from './oauth.tables.js';

/**
 * Creates an OAuth client for a clinic. A client without `jwks` gets a secret, returned once, here
 * (only its hash is stored); a client with `jwks` authenticates with a JWT signed by one of those
 * keys (private_key_jwt) and has no secret at all. `environment` defaults to the server's.
 * Audited (`create` of the oauth_client), naming who created it.
 */
export async function createOAuthClient(
  ctx: ServiceContext,
  clinicId: string,
  input: CreateOAuthClientInput,
  audit: AuditContext | null,
): Promise<IssuedOAuthClientView> {
  await getClinic(ctx, clinicId);
  const environment: Environment = input.environment ?? ctx.config.env;
  const jwks = input.jwks ? checkedJwks(input.jwks) : null;
  const secret = jwks === null ? generateClientSecret(environment) : null;
  const scopes = [...new Set(input.scopes)];
  const row: OAuthClientTable = {
    id: newId(),
    clinic_id: clinicId,
    environment,
    secret_hash: secret === null ? null : hashApiKey(secret),
    jwks,
    scopes: JSON.stringify(scopes),
    created_at: ctx.clock().toISOString(),
    revoked_at: null,
  };
  await runChange(ctx, audit, (change) => {
    change.write(repo.oauthClientInsert(change, row));
    change.audit?.('create', clientResource(row));
  });
  return { ...toSummary(row), client_secret: secret };
}

/** A clinic's clients, oldest first; never their secrets (only hashes are stored) nor their keys. */
export async function listOAuthClients(ctx: ReadContext, clinicId: string): Promise<OAuthClientSummaryView[]> {
  await getClinic(ctx, clinicId);
  return (await repo.listOAuthClients(ctx.db, clinicId)).map((row) => ({ ...toSummary(row), revoked_at: row.revoked_at }));
}

/**
 * Revokes a client: its next token request, and the next request made with any of its access tokens,
 * are refused, on every instance (both look the client up). Revoking twice is harmless; only the
 * revocation that took effect is audited (`revoke`).
 */
export async function revokeOAuthClient(
  ctx: ServiceContext,
  clientId: string,
  audit: AuditContext | null,
): Promise<RevokedOAuthClientView> {
  const revokedAt = ctx.clock().toISOString();
  const row = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const result = await trx.executeQuery(repo.oauthClientRevocation(trx, clientId, revokedAt).compile());
    const found = await repo.findOAuthClient(trx, clientId);
    if (found && Number(result.numAffectedRows ?? 0) > 0) change.audit?.('revoke', clientResource(found));
    return found;
  });
  if (!row) throw notFound('OAuth client not found');
  return { client_id: row.id, revoked_at: row.revoked_at ?? revokedAt };
}

const clientResource = (row: Pick<OAuthClientTable, 'id' | 'clinic_id'>): AuditedResource => ({
  type: 'oauth_client',
  id: row.id,
  clinicId: row.clinic_id,
});

/** The scopes a client row holds (written by createOAuthClient: never empty, every one known). */
export function scopesOf(row: Pick<OAuthClientTable, 'scopes'>): Scope[] {
  const parsed: unknown = JSON.parse(row.scopes);
  return Array.isArray(parsed) ? parsed.filter((scope): scope is Scope => typeof scope === 'string' && isScope(scope)) : [];
}

function toSummary(row: OAuthClientTable): Omit<OAuthClientSummaryView, 'revoked_at'> {
  return {
    client_id: row.id,
    clinic_id: row.clinic_id,
    environment: row.environment as Environment,
    scopes: scopesOf(row),
    token_endpoint_auth_method: row.jwks === null ? 'client_secret_basic' : 'private_key_jwt',
    created_at: row.created_at,
  };
}
