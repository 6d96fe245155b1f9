import type { AuditContext } from '../audit/audit-actor.js';
import { MAX_KEY_LIFETIME_SECONDS } from '../clinics/api-key.js';
import type { ApiKeySummaryView, IssuedApiKeyView } from '../clinics/clinic.schemas.js';
import { getApiKeyOfClinic, issueApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../clinics/clinic.service.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { fieldError } from '../errors.js';
import { storedInstant } from '../shared/instants.js';
import type { PartnerUserIdentity } from './partner-user-identity.js';
import type { CreatePortalApiKeyBody, PortalIssuedApiKeyView, PortalRolledApiKeyView } from './portal-keys.schemas.js';

/*
 * A portal user's API keys: the clinic service's keys (issue, roll, revoke), held to the user's clinic.
 * A key of another clinic is not found (404) before anything is changed.
 */

export async function listPortalApiKeys(ctx: ReadContext, user: PartnerUserIdentity): Promise<ApiKeySummaryView[]> {
  return listApiKeys(ctx, user.clinicId);
}

/** Issues a key of this server's environment for the user's clinic; the secret is in this answer only. */
export async function createPortalApiKey(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  body: CreatePortalApiKeyBody,
  audit: AuditContext,
): Promise<PortalIssuedApiKeyView> {
  const issued = await issueApiKey(ctx, user.clinicId, audit, undefined, {
    scopes: body.scopes,
    expiresInSeconds: body.expires_at === undefined ? undefined : lifetimeUntil(ctx, body.expires_at),
  });
  return { api_key: summaryOf(issued), secret: issued.api_key };
}

/** Rolls a key of the user's clinic: its successor's secret once, and when the old key stops. */
export async function rollPortalApiKey(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  apiKeyId: string,
  overlapHours: number,
  audit: AuditContext,
): Promise<PortalRolledApiKeyView> {
  await getApiKeyOfClinic(ctx, user.clinicId, apiKeyId);
  const rolled = await rollApiKey(ctx, apiKeyId, overlapHours * 3600, audit);
  return { api_key: summaryOf(rolled), secret: rolled.api_key, previous_key: rolled.previous_key };
}

/** Revokes a key of the user's clinic: its next request is refused (401). */
export async function revokePortalApiKey(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  apiKeyId: string,
  audit: AuditContext,
): Promise<ApiKeySummaryView> {
  await getApiKeyOfClinic(ctx, user.clinicId, apiKeyId);
  await revokeApiKey(ctx, apiKeyId, audit);
  return getApiKeyOfClinic(ctx, user.clinicId, apiKeyId);
}

/** Seconds from now to `expiresAt`: in the future, at most the longest lifetime a key is issued with. */
function lifetimeUntil(ctx: Pick<ServiceContext, 'clock'>, expiresAt: string): number {
  const seconds = (Date.parse(storedInstant(expiresAt, 'expires_at')) - ctx.clock().getTime()) / 1000;
  if (!(seconds > 0)) throw fieldError('expires_at', 'must be in the future');
  if (seconds > MAX_KEY_LIFETIME_SECONDS) throw fieldError('expires_at', 'must be at most 10 years from now');
  return seconds;
}

/** The list's view of a key just issued (not revoked), without its secret. */
function summaryOf(issued: IssuedApiKeyView): ApiKeySummaryView {
  return {
    api_key_id: issued.api_key_id,
    environment: issued.environment,
    key_prefix: issued.key_prefix,
    key_last4: issued.key_last4,
    scopes: issued.scopes,
    created_at: issued.created_at,
    expires_at: issued.expires_at,
    last_used_at: issued.last_used_at,
    revoked_at: null,
  };
}
