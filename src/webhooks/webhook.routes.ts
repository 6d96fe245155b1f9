// Over 250 lines: the partner's nine webhook endpoint routes with their schemas and descriptions, each a thin call to its service.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { deprecatedRoute } from '../deprecations/deprecated-route.js';
import { partnerOf } from '../http/partner-guard.js';
import { conflictError, Envelope, forbiddenError, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { markDeprecatedUse } from '../deprecations/deprecation-headers.js';
import { fieldError } from '../errors.js';
import { endpointRefFromQuery } from './delete-by-query.js';
import {
  DeletedEndpoint,
  DeleteEndpointQuery,
  ListEndpointsQuery,
  PartnerDeliveryPage,
  PartnerDeliveryQuery,
  Recovered,
  PartnerRecoverEndpointBody,
  RegisteredEndpoint,
  RegisterEndpointBody,
  RotatedSecret,
  RotateSecretBody,
  TestCallOutcome,
  type TestCallOutcomeView,
  UpdateEndpointBody,
  PartnerEndpoint,
  WebhookIdParams,
  EndpointRef,
} from './webhook.schemas.js';
import { listDeliveriesForPartner } from './delivery-log.service.js';
import { recoverEndpointForPartner } from './recovery.service.js';
import { MAX_IN_FLIGHT, MAX_PER_SECOND } from '../delivery/endpoint-limits.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import { previousSecretExpiresAt, rotateEndpointSecret } from './secret-rotation.service.js';
import { testEndpoint } from './test-call.service.js';
import {
  deleteEndpoint,
  listEndpointsForPartner,
  MAX_ENDPOINTS_PER_CLINIC,
  registerEndpointForPartner,
  updateEndpoint,
} from './webhook.service.js';

const tags = ['Webhooks'];
const security = [{ apiKey: [] }];

/** The partner's webhook endpoints: register, list, change, delete, and the test call. See docs/webhooks.md. */
export function webhookRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/webhook',
      {
        schema: {
          tags,
          security,
          operationId: 'createWebhook',
          'x-required-scope': 'webhooks:write',
          summary: 'Register a webhook endpoint',
          description: [
            'Registers a URL that receives every event of the clinic as a signed POST (Standard Webhooks: `webhook-id`,',
            '`webhook-timestamp`, `webhook-signature`). The answer carries the endpoint\u2019s signing `secret`, shown only here.',
            `A clinic may have up to ${MAX_ENDPOINTS_PER_CLINIC} endpoints; the same URL twice is refused. The host must be`,
            'public (no loopback, private, link-local or other internal address); production requires `https://`.',
            `Optional limits, held across all of the pharmacy\u2019s delivery workers: \`max_in_flight\` (attempts at once,`,
            `${MAX_IN_FLIGHT.min}\u2013${MAX_IN_FLIGHT.max}, default ${MAX_IN_FLIGHT.default}) and \`max_per_second\``,
            `(${MAX_PER_SECOND.min}\u2013${MAX_PER_SECOND.max}; null or absent: no limit).`,
            '`event_types` chooses the event types the endpoint receives (absent or null: every type, including types added later;',
            'an unknown name or an empty list: 400 listing the valid ones; duplicates dropped). The test call is sent whatever the list.',
          ].join(' '),
          body: RegisterEndpointBody,
          response: { 200: Envelope(RegisteredEndpoint), ...partnerErrors, ...forbiddenError },
        },
      },
      async (request) => {
        const data = await registerEndpointForPartner(ctx, partnerOf(request), request.body, partnerAudit(request));
        return {
          success: true as const,
          data,
          message: 'Webhook registered successfully; store the secret: it is not shown again',
        };
      },
    );

    app.get(
      '/api/external/webhook',
      {
        schema: {
          tags,
          security,
          operationId: 'listWebhooks',
          'x-required-scope': 'webhooks:read',
          summary: 'List webhook endpoints (extension)',
          description: 'The clinic\u2019s endpoints and their state, never their secrets.',
          querystring: ListEndpointsQuery,
          response: {
            200: Envelope(Type.Array(PartnerEndpoint)),
            ...partnerErrors,
            ...forbiddenError,
          },
        },
      },
      async (request) => {
        const data = await listEndpointsForPartner(ctx, partnerOf(request), request.query.clinic_id, partnerAudit(request));
        return { success: true as const, data, message: 'Webhooks retrieved successfully' };
      },
    );

    // Deprecated (deprecations/registry.ts): many HTTP clients and proxies drop a DELETE's body.
    app.delete(
      '/api/external/webhook',
      deprecatedRoute('webhook_delete_with_body', {
        schema: {
          tags,
          security,
          operationId: 'deleteWebhook',
          'x-required-scope': 'webhooks:write',
          summary: 'Delete a webhook endpoint (deprecated: use DELETE /api/external/webhook/{webhookId})',
          description: [
            'Deletes the endpoint; deliveries still pending for it are cancelled.',
            '',
            'Two forms: the spec\u2019s, a JSON body with `clinic_id` and `webhook_id`; and the original system\u2019s,',
            '`DELETE /api/external/webhook?id=<webhook_id>` without a body (the clinic is the credential\u2019s). With a',
            'body, an `id` naming another endpoint is refused.',
            '',
            '**Migrating** (docs/webhooks.md, "Migrating to DELETE by id"): send',
            '`DELETE /api/external/webhook/{webhookId}` with the `webhook_id` in the path and no body. The clinic is the',
            'credential\u2019s, so `clinic_id` is not sent; the answer is the same (`data.webhook_id`), and an unknown, deleted',
            'or other clinic\u2019s endpoint is the same 404.',
          ].join('\n'),
          querystring: DeleteEndpointQuery,
          body: EndpointRef,
          response: { 200: Envelope(DeletedEndpoint), ...partnerErrors, ...forbiddenError, ...notFoundError('Webhook') },
        },
        // `?id=` without a body stands for the body (delete-by-query.ts).
        preValidation: endpointRefFromQuery((request) => partnerOf(request).clinicId),
      }),
      async (request, reply) => {
        const byQuery = request.query.id;
        if (byQuery !== undefined) {
          markDeprecatedUse(ctx, reply, 'webhook_delete_with_query_id');
          if (byQuery !== request.body.webhook_id) {
            throw fieldError('id', 'names another endpoint than the body\u2019s webhook_id: send the id in one place');
          }
        }
        const data = await deleteEndpoint(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Webhook deleted successfully' };
      },
    );

    app.delete(
      '/api/external/webhook/:webhookId',
      {
        schema: {
          operationId: 'deleteWebhookById',
          'x-required-scope': 'webhooks:write',
          tags,
          security,
          summary: 'Delete a webhook endpoint by its id (extension)',
          description: [
            'The same as `DELETE /api/external/webhook` with the id in the path and no body (for HTTP clients that drop',
            'a DELETE\u2019s body); the clinic is the API key\u2019s. Deliveries still pending for it are cancelled; another',
            'clinic\u2019s endpoint, or one already deleted, is not found.',
          ].join(' '),
          params: WebhookIdParams,
          response: { 200: Envelope(DeletedEndpoint), ...partnerErrors, ...notFoundError('Webhook') },
        },
      },
      async (request) => {
        const identity = partnerOf(request);
        const data = await deleteEndpoint(
          ctx,
          identity,
          { clinic_id: identity.clinicId, webhook_id: request.params.webhookId },
          partnerAudit(request),
        );
        return { success: true as const, data, message: 'Webhook deleted successfully' };
      },
    );

    app.patch(
      '/api/external/webhook/:webhookId',
      {
        schema: {
          operationId: 'updateWebhookById',
          'x-required-scope': 'webhooks:write',
          tags,
          security,
          summary: 'Change a webhook endpoint\u2019s delivery limits and event types (extension)',
          description: [
            'Sets the fields given, keeps the others: `max_in_flight` (attempts to the endpoint at once,',
            `${MAX_IN_FLIGHT.min}\u2013${MAX_IN_FLIGHT.max}) and \`max_per_second\` (attempts started per second,`,
            `${MAX_PER_SECOND.min}\u2013${MAX_PER_SECOND.max}; null removes the limit), held across all of the pharmacy\u2019s`,
            'delivery workers, and `event_types` (the types the endpoint receives; null: every type); at least one of them. The clinic is the API key\u2019s; another clinic\u2019s endpoint, or',
            'one deleted, is not found. A disabled endpoint can be changed too. Answers the endpoint as changed.',
          ].join(' '),
          params: WebhookIdParams,
          body: UpdateEndpointBody,
          response: { 200: Envelope(PartnerEndpoint), ...partnerErrors, ...notFoundError('Webhook') },
        },
      },
      async (request) => {
        const identity = partnerOf(request);
        const data = await updateEndpoint(
          ctx,
          identity,
          { clinic_id: identity.clinicId, webhook_id: request.params.webhookId },
          request.body,
          partnerAudit(request),
        );
        return { success: true as const, data, message: 'Webhook updated successfully' };
      },
    );

    app.post(
      '/api/external/webhook/:webhookId/rotate-secret',
      {
        schema: {
          operationId: 'rotateWebhookSecret',
          'x-required-scope': 'webhooks:write',
          tags,
          security,
          summary: 'Rotate a webhook endpoint\u2019s signing secret (extension)',
          description: [
            'Issues a new signing secret, shown only in this answer. The previous one keeps signing beside it for',
            '`previous_valid_hours` (0\u201324, default 24; 0: it stops at once): until `previous_secret_expires_at` every',
            'attempt carries both signatures in `webhook-signature` (`v1,<new> v1,<previous>`), so receivers verifying',
            'with either secret accept it while you deploy the new one. A previous secret from an earlier rotation is',
            'dropped. The body is optional. Another clinic\u2019s endpoint, or one deleted, is not found.',
          ].join(' '),
          params: WebhookIdParams,
          body: RotateSecretBody,
          response: { 200: Envelope(RotatedSecret), ...partnerErrors, ...notFoundError('Webhook') },
        },
        preValidation: emptyBodyWhenAbsent,
      },
      async (request) => {
        const identity = partnerOf(request);
        const { endpoint, secret } = await rotateEndpointSecret(
          ctx,
          identity.clinicId,
          request.params.webhookId,
          request.body.previous_valid_hours,
          partnerAudit(request),
        );
        const data = {
          webhook_id: endpoint.id,
          secret,
          previous_secret_expires_at: previousSecretExpiresAt(endpoint, ctx.clock()),
        };
        return { success: true as const, data, message: 'Signing secret rotated; store the new secret: it is not shown again' };
      },
    );

    app.get(
      '/api/external/webhook/deliveries',
      {
        schema: {
          operationId: 'listWebhookDeliveries',
          'x-required-scope': 'webhooks:read',
          tags,
          security,
          summary: 'List your clinic\u2019s webhook deliveries (extension)',
          description: [
            'Your clinic\u2019s delivery log, newest first: each event sent (or to be sent) to each of your endpoints, its',
            'status and every attempt (time, duration, the status code your endpoint answered or why none came; never the',
            'response body). Filter by `webhook_id`, `status` and `event_type` (another clinic\u2019s endpoint matches',
            'none). `limit` 1 to 100 (default 50) per page; pass `next_cursor` as `cursor` for the next page (null on the last).',
          ].join(' '),
          querystring: PartnerDeliveryQuery,
          response: { 200: Envelope(PartnerDeliveryPage), ...partnerErrors },
        },
      },
      async (request) => {
        const data = await listDeliveriesForPartner(ctx, partnerOf(request), request.query, partnerAudit(request));
        return { success: true as const, data, message: 'Webhook deliveries retrieved successfully' };
      },
    );

    app.post(
      '/api/external/webhook/test',
      {
        schema: {
          tags,
          security,
          operationId: 'testWebhook',
          'x-required-scope': 'webhooks:write',
          summary: 'Send a test event to a webhook endpoint (extension)',
          description: [
            'Sends a signed `webhook.test` event now and answers with the outcome: the status code and the time only,',
            'never your endpoint\u2019s response body or headers. A failure of your endpoint (non-2xx, timeout, network',
            'error) is still a 200 answer: `data.delivered` is false and `status_code` / `error` say why. Not retried.',
          ].join(' '),
          body: EndpointRef,
          response: { 200: Envelope(TestCallOutcome), ...partnerErrors, ...forbiddenError, ...notFoundError('Webhook') },
        },
      },
      async (request) => {
        const data = await testEndpoint(ctx, partnerOf(request), request.body, partnerAudit(request));
        const message = data.delivered
          ? `Test event delivered (HTTP ${data.status_code ?? ''})`
          : `Test event not delivered: ${data.status_code !== null ? `HTTP ${data.status_code}` : failureText(data.error)}`;
        return { success: true as const, data, message };
      },
    );

    app.post(
      '/api/external/webhook/recover',
      {
        schema: {
          tags,
          security,
          operationId: 'recoverWebhook',
          'x-required-scope': 'webhooks:write',
          summary: 'Recover a webhook endpoint after an outage (extension)',
          description: [
            'Once your endpoint is up again: every delivery to it that failed or is waiting for a retry, created since',
            '`since` (default: 24 hours ago; at most 7 days ago), is attempted again now instead of at its next retry.',
            'Answers how many were scheduled (`data.scheduled`); they arrive within moments, each with its original',
            '`webhook-id`. Deliveries already delivered are not sent again. 409 when the endpoint is disabled (ask the',
            'pharmacy to re-enable it).',
          ].join(' '),
          body: PartnerRecoverEndpointBody,
          response: {
            200: Envelope(Recovered),
            ...partnerErrors,
            ...forbiddenError,
            ...notFoundError('Webhook'),
            ...conflictError('The endpoint is disabled: the pharmacy re-enables it.'),
          },
        },
      },
      async (request) => {
        const data = await recoverEndpointForPartner(ctx, partnerOf(request), request.body, partnerAudit(request));
        return {
          success: true as const,
          data,
          message: `${data.scheduled} webhook deliver${data.scheduled === 1 ? 'y' : 'ies'} scheduled for an attempt now`,
        };
      },
    );
  };
}

function failureText(kind: TestCallOutcomeView['error']): string {
  switch (kind) {
    case 'timeout':
      return 'no answer within the timeout';
    case 'network_error':
      return 'the endpoint could not be reached (connection, TLS or DNS failure)';
    case 'refused':
      return 'refused: the URL points to a private or internal address';
    case null:
      return 'no response';
  }
}
