import { getClinic, workingApiKeyBuckets } from '../clinics/clinic.service.js';
import type { AppContext } from '../context.js';
import { oauthClientRateLimitBucket, PARTNER_RATE_LIMIT_WINDOW_MS, windowOf } from '../contracts/rate-limit-buckets.js';
import { FHIR_BASE_PATH } from '../fhir/fhir-base.js';
import { listOAuthClients } from '../oauth/oauth-client.service.js';
import { requestLogLastDay } from '../request-log/request-log.service.js';
import type { PortalOverviewView } from './portal-overview.schemas.js';
import type { PartnerUserIdentity } from './partner-user-identity.js';

export type OverviewContext = Pick<AppContext, 'db' | 'clock' | 'config' | 'rateLimitStore'>;

/**
 * The portal's overview of the user's clinic: the environment, the clinic, where the FHIR API is (under
 * `baseUrl`, http/request-host.ts `publicBaseUrl`), this minute's use of the rate limit (read from the
 * partner guard's counters without counting anything), and the request log's last 24 hours.
 */
export async function portalOverview(
  ctx: OverviewContext,
  user: PartnerUserIdentity,
  baseUrl: string,
): Promise<PortalOverviewView> {
  const [clinic, rateLimit, lastDay] = await Promise.all([
    getClinic(ctx, user.clinicId),
    rateLimitUse(ctx, user.clinicId),
    requestLogLastDay(ctx, user.clinicId),
  ]);
  return {
    environment: ctx.config.env,
    clinic_id: clinic.clinic_id,
    clinic_name: clinic.name,
    rate_limit: rateLimit,
    fhir_base_url: `${baseUrl}${FHIR_BASE_PATH}`,
    smart_configuration_url: `${baseUrl}${FHIR_BASE_PATH}/.well-known/smart-configuration`,
    requests_24h: lastDay.requests,
    errors_24h: lastDay.errors,
  };
}

/** The limit is per credential: each working key's and OAuth client's count of the minute, the busiest's as `used`. */
async function rateLimitUse(ctx: OverviewContext, clinicId: string): Promise<PortalOverviewView['rate_limit']> {
  const [keys, clients] = await Promise.all([workingApiKeyBuckets(ctx, clinicId), listOAuthClients(ctx, clinicId)]);
  const credentials = [
    ...keys.map((key) => ({ kind: 'api_key' as const, id: key.apiKeyId, bucket: key.bucket })),
    ...clients
      .filter((client) => client.revoked_at === null)
      .map((client) => ({
        kind: 'oauth_client' as const,
        id: client.client_id,
        bucket: oauthClientRateLimitBucket(client.client_id),
      })),
  ];
  const now = ctx.clock().getTime();
  const windows = await ctx.rateLimitStore.peek(
    credentials.map((credential) => credential.bucket),
    PARTNER_RATE_LIMIT_WINDOW_MS,
    now,
  );
  const used = credentials
    .map((credential, i) => ({ kind: credential.kind, id: credential.id, used: windows[i]?.count ?? 0 }))
    .sort((a, b) => b.used - a.used);
  const { resetAt } = windowOf(now, PARTNER_RATE_LIMIT_WINDOW_MS);
  return {
    limit: ctx.config.rateLimitPerMinute,
    used: used[0]?.used ?? 0,
    resets_at: new Date(resetAt).toISOString(),
    credentials: used,
  };
}
