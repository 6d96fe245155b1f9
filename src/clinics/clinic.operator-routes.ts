import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  createClinic,
  getClinic,
  issueApiKey,
  listApiKeys,
  listClinics,
  revokeApiKey,
  rollApiKey,
  setFreeShipping,
} from './clinic.service.js';
import type { AppContext } from '../context.js';
import { Envelope } from '../contracts/schemas.js';
import { operatorAudit } from '../http/audit-context.js';
import {
  ApiKeySummary,
  Clinic,
  CreateClinicBody,
  FreeShippingBody,
  IssueApiKeyBody,
  IssuedApiKey,
  RevokedApiKey,
  RollApiKeyBody,
  RolledApiKey,
} from './clinic.schemas.js';
import { operatorErrors, errorRef, operatorSecurity } from '../contracts/schemas.js';
import { ApiKeyParams, ClinicParams } from './clinic.schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';

const tags = ['Operator'];
const security = operatorSecurity;

/** Operator routes for clinics, their API keys and free shipping (behind ADMIN_TOKEN); the formulary's are medications/medication.operator-routes.ts. */
export function clinicOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/admin/clinics',
      {
        schema: {
          tags,
          security,
          operationId: 'createOperatorClinic',
          summary: 'Create a clinic',
          body: CreateClinicBody,
          response: { 200: Envelope(Clinic), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await createClinic(ctx, request.body, operatorAudit(request)),
        message: 'Clinic created',
      }),
    );

    app.get(
      '/api/admin/clinics',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorClinics',
          summary: 'List clinics',
          response: {
            200: Envelope(Type.Object({ clinics: Type.Array(Clinic) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async () => ({ success: true as const, data: { clinics: await listClinics(ctx) }, message: 'Clinics' }),
    );

    app.get(
      '/api/admin/clinics/:clinicId',
      {
        schema: {
          tags,
          security,
          operationId: 'getOperatorClinic',
          summary: 'Get a clinic',
          params: ClinicParams,
          response: { 200: Envelope(Clinic), ...operatorErrors },
        },
      },
      async (request) => ({ success: true as const, data: await getClinic(ctx, request.params.clinicId), message: 'Clinic' }),
    );

    app.put(
      '/api/admin/clinics/:clinicId/shipping',
      {
        schema: {
          tags,
          security,
          operationId: 'updateOperatorClinicShipping',
          summary: 'Turn a clinic\u2019s free shipping on or off',
          description:
            'With free shipping every service costs the clinic 0 (`totalCost` 0, `freeShipmentType` `clinic_specific`).',
          params: ClinicParams,
          body: FreeShippingBody,
          response: { 200: Envelope(Clinic), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await setFreeShipping(ctx, request.params.clinicId, request.body.free_shipping, operatorAudit(request)),
        message: request.body.free_shipping ? 'Free shipping enabled' : 'Free shipping disabled',
      }),
    );

    app.post(
      '/api/admin/clinics/:clinicId/api-keys',
      {
        schema: {
          tags,
          security,
          operationId: 'createOperatorClinicApiKey',
          summary: 'Issue an API key for a clinic',
          description: [
            'The response is the only time the key is shown; only its hash is stored. The environment defaults to the server\u2019s.',
            'With `scopes` the key is restricted to them (403 FORBIDDEN naming the missing scope elsewhere); without, it has full access.',
            'With `expires_in_seconds` it stops working then (401 "Unauthorized: API key has expired").',
          ].join(' '),
          params: ClinicParams,
          body: IssueApiKeyBody,
          response: { 200: Envelope(IssuedApiKey), ...operatorErrors },
        },
        // The body is optional: a POST without one means `{}` (the server's environment, full access, no expiry).
        preValidation: emptyBodyWhenAbsent,
      },
      async (request) => {
        const { environment, scopes, expires_in_seconds } = request.body;
        return {
          success: true as const,
          data: await issueApiKey(ctx, request.params.clinicId, operatorAudit(request), environment, {
            scopes,
            expiresInSeconds: expires_in_seconds,
          }),
          message: 'API key issued: store it now, it is not shown again',
        };
      },
    );

    app.post(
      '/api/admin/api-keys/:apiKeyId/roll',
      {
        schema: {
          tags,
          security,
          operationId: 'rollOperatorApiKey',
          summary: 'Roll an API key: issue its successor, and let the old key expire',
          description: [
            'Issues a new key of the same clinic, environment and scopes (shown this once, without expiry) and makes the',
            'old key expire `expires_in_seconds` from now (0: at once; at most 7 days, and never later than an expiry it',
            'already had): both work until then, so the partner can move every server to the new key without refusing',
            'traffic. `previous_key.expires_at` says when the old key stops. A revoked or expired key cannot be rolled (409).',
          ].join(' '),
          params: ApiKeyParams,
          body: RollApiKeyBody,
          response: {
            200: Envelope(RolledApiKey),
            ...operatorErrors,
            409: errorRef('The key is revoked or has expired: issue a new key instead.'),
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: await rollApiKey(ctx, request.params.apiKeyId, request.body.expires_in_seconds, operatorAudit(request)),
        message: 'API key rolled: store the new key now, it is not shown again',
      }),
    );

    app.get(
      '/api/admin/clinics/:clinicId/api-keys',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorClinicApiKeys',
          summary: 'List a clinic\u2019s API keys (prefixes and last four characters only)',
          description:
            'Every key of the clinic, oldest first: its prefix and last four characters (never the key), scopes (null: full access), when it was created, last used (to the minute), expires and was revoked.',
          params: ClinicParams,
          response: {
            200: Envelope(Type.Object({ api_keys: Type.Array(ApiKeySummary) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: { api_keys: await listApiKeys(ctx, request.params.clinicId) },
        message: 'API keys',
      }),
    );

    app.delete(
      '/api/admin/api-keys/:apiKeyId',
      {
        schema: {
          tags,
          security,
          operationId: 'revokeOperatorApiKey',
          summary: 'Revoke an API key',
          description: 'The next request made with the key is refused with 401. Revoking a revoked key is harmless.',
          params: ApiKeyParams,
          response: { 200: Envelope(RevokedApiKey), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await revokeApiKey(ctx, request.params.apiKeyId, operatorAudit(request)),
        message: 'API key revoked',
      }),
    );
  };
}
