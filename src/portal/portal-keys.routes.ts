import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { ApiKeySummary } from '../clinics/clinic.schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import { Envelope, errorRef } from '../contracts/schemas.js';
import { portalChangeErrors, portalNotFound, portalReadErrors, portalSecurity, portalTags } from './portal-common.schemas.js';
import {
  CreatePortalApiKeyBody,
  PortalApiKeyList,
  PortalApiKeyParams,
  PortalIssuedApiKey,
  PortalRolledApiKey,
  RollPortalApiKeyBody,
} from './portal-keys.schemas.js';
import { createPortalApiKey, listPortalApiKeys, revokePortalApiKey, rollPortalApiKey } from './portal-keys.service.js';
import { portalAudit } from '../http/audit-context.js';
import { portalDeveloperOf, partnerUserOf } from './partner-user-identity.js';

const tags = portalTags;
const security = portalSecurity;

/** The portal's API keys (docs/portal.md): every member of the clinic reads them; developers change them. */
export function portalKeyRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/portal/keys',
      {
        schema: {
          tags,
          security,
          operationId: 'portalListApiKeys',
          summary: 'Your clinic\u2019s API keys',
          description:
            'Every key of the clinic, oldest first: prefix and last four characters (never the key), scopes (null: full access), created, last used (to the minute), expiry and revocation.',
          response: { 200: Envelope(PortalApiKeyList), ...portalReadErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: { api_keys: await listPortalApiKeys(ctx, partnerUserOf(request)) },
        message: 'API keys',
      }),
    );

    app.post(
      '/api/portal/keys',
      {
        preValidation: emptyBodyWhenAbsent,
        schema: {
          tags,
          security,
          operationId: 'portalCreateApiKey',
          summary: 'Create an API key (developers)',
          description:
            'A key of this server\u2019s environment for your clinic. `secret` is shown in this answer only: only its hash is stored.',
          body: CreatePortalApiKeyBody,
          response: { 200: Envelope(PortalIssuedApiKey), ...portalChangeErrors },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        return {
          success: true as const,
          data: await createPortalApiKey(ctx, user, request.body, portalAudit(request, user)),
          message: 'API key created: store the secret now, it is not shown again',
        };
      },
    );

    app.post(
      '/api/portal/keys/:apiKeyId/roll',
      {
        preValidation: emptyBodyWhenAbsent,
        schema: {
          tags,
          security,
          operationId: 'portalRollApiKey',
          summary: 'Roll an API key (developers)',
          description:
            'Issues the key\u2019s successor (same scopes, no expiry; `secret` shown this once) and makes the old key expire `expires_in_hours` from now (default 24): both work until `previous_key.expires_at`. A revoked or expired key cannot be rolled (409).',
          params: PortalApiKeyParams,
          body: RollPortalApiKeyBody,
          response: {
            200: Envelope(PortalRolledApiKey),
            ...portalChangeErrors,
            ...portalNotFound('API key'),
            409: errorRef('The key is revoked or has expired: create a new key instead.'),
          },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        const hours = request.body.expires_in_hours ?? 24;
        return {
          success: true as const,
          data: await rollPortalApiKey(ctx, user, request.params.apiKeyId, hours, portalAudit(request, user)),
          message: 'API key rolled: store the new secret now, it is not shown again',
        };
      },
    );

    app.post(
      '/api/portal/keys/:apiKeyId/revoke',
      {
        schema: {
          tags,
          security,
          operationId: 'portalRevokeApiKey',
          summary: 'Revoke an API key (developers)',
          description: 'The next request made with the key is refused with 401. Revoking a revoked key is harmless.',
          params: PortalApiKeyParams,
          response: { 200: Envelope(ApiKeySummary), ...portalChangeErrors, ...portalNotFound('API key') },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        return {
          success: true as const,
          data: await revokePortalApiKey(ctx, user, request.params.apiKeyId, portalAudit(request, user)),
          message: 'API key revoked',
        };
      },
    );
  };
}
