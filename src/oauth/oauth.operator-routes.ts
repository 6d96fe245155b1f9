import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ClinicParams } from '../clinics/clinic.schemas.js';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { operatorErrors, Envelope, operatorSecurity } from '../contracts/schemas.js';
import { createOAuthClient, listOAuthClients, revokeOAuthClient } from './oauth-client.service.js';
import {
  CreateOAuthClientBody,
  IssuedOAuthClient,
  OAuthClientParams,
  OAuthClientSummary,
  RevokedOAuthClient,
} from './oauth.schemas.js';

const tags = ['Operator'];
const security = operatorSecurity;

/** Operator routes for a clinic's OAuth clients (admins only, as API keys: staff/operator-roles.ts). */
export function oauthOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/admin/clinics/:clinicId/oauth-clients',
      {
        schema: {
          tags,
          security,
          operationId: 'createOperatorClinicOAuthClient',
          summary: 'Create an OAuth client for a clinic',
          description:
            'The response is the only time `client_secret` is shown; only its hash is stored. With `jwks` the client authenticates with private_key_jwt and gets no secret. The environment defaults to the server\u2019s.',
          params: ClinicParams,
          body: CreateOAuthClientBody,
          response: { 200: Envelope(IssuedOAuthClient), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await createOAuthClient(ctx, request.params.clinicId, request.body, operatorAudit(request)),
        message: 'OAuth client created: store its secret now, it is not shown again',
      }),
    );

    app.get(
      '/api/admin/clinics/:clinicId/oauth-clients',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorClinicOAuthClients',
          summary: 'List a clinic\u2019s OAuth clients (never their secrets)',
          params: ClinicParams,
          response: {
            200: Envelope(Type.Object({ oauth_clients: Type.Array(OAuthClientSummary) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: { oauth_clients: await listOAuthClients(ctx, request.params.clinicId) },
        message: 'OAuth clients',
      }),
    );

    app.delete(
      '/api/admin/oauth-clients/:clientId',
      {
        schema: {
          tags,
          security,
          operationId: 'revokeOperatorOAuthClient',
          summary: 'Revoke an OAuth client',
          description:
            'Its next token request, and the next request made with any of its access tokens, are refused with 401. Revoking a revoked client is harmless.',
          params: OAuthClientParams,
          response: { 200: Envelope(RevokedOAuthClient), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await revokeOAuthClient(ctx, request.params.clientId, operatorAudit(request)),
        message: 'OAuth client revoked',
      }),
    );
  };
}
