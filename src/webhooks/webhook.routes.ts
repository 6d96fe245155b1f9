import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { conflictError, Envelope, forbiddenError, notFoundError, partnerErrors } from '../http/schemas.js';
import {
  DeletedWebhook,
  ListWebhooksQuery,
  Recovered,
  RecoverWebhookBody,
  RegisteredWebhook,
  RegisterWebhookBody,
  TestCallOutcome,
  type TestCallOutcomeView,
  WebhookEndpoint,
  WebhookRef,
} from './webhook.schemas.js';
import { recoverEndpointForPartner } from './recovery.service.js';
import { deleteWebhook, listWebhooks, MAX_ENDPOINTS_PER_CLINIC, registerWebhook, testWebhook } from './webhook.service.js';

const tags = ['Webhooks'];
const security = [{ apiKey: [] }];

/** The partner's webhook endpoints: register, list, delete, and the test call. See docs/webhooks.md. */
export function webhookRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/webhook',
      {
        schema: {
          tags,
          security,
          operationId: 'createWebhook',
          summary: 'Register a webhook endpoint',
          description: [
            'Registers a URL that receives every event of the clinic as a signed POST (Standard Webhooks: `webhook-id`,',
            '`webhook-timestamp`, `webhook-signature`). The answer carries the endpoint\u2019s signing `secret`, shown only here.',
            `A clinic may have up to ${MAX_ENDPOINTS_PER_CLINIC} endpoints; the same URL twice is refused. The host must be`,
            'public (no loopback, private, link-local or other internal address); production requires `https://`.',
          ].join(' '),
          body: RegisterWebhookBody,
          response: { 200: Envelope(RegisteredWebhook), ...partnerErrors, ...forbiddenError },
        },
      },
      async (request) => {
        const data = await registerWebhook(ctx, partnerOf(request), request.body, partnerAudit(request));
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
          summary: 'List webhook endpoints (extension)',
          description: 'The clinic\u2019s endpoints and their state, never their secrets.',
          querystring: ListWebhooksQuery,
          response: {
            200: Envelope(Type.Array(WebhookEndpoint)),
            ...partnerErrors,
            ...forbiddenError,
          },
        },
      },
      async (request) => {
        const data = await listWebhooks(ctx, partnerOf(request), request.query.clinic_id, partnerAudit(request));
        return { success: true as const, data, message: 'Webhooks retrieved successfully' };
      },
    );

    app.delete(
      '/api/external/webhook',
      {
        schema: {
          tags,
          security,
          operationId: 'deleteWebhook',
          summary: 'Delete a webhook endpoint',
          description: 'Deletes the endpoint; deliveries still pending for it are cancelled.',
          body: WebhookRef,
          response: { 200: Envelope(DeletedWebhook), ...partnerErrors, ...forbiddenError, ...notFoundError('Webhook') },
        },
      },
      async (request) => {
        const data = await deleteWebhook(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Webhook deleted successfully' };
      },
    );

    app.post(
      '/api/external/webhook/test',
      {
        schema: {
          tags,
          security,
          operationId: 'testWebhook',
          summary: 'Send a test event to a webhook endpoint (extension)',
          description: [
            'Sends a signed `webhook.test` event now and answers with the outcome: the status code and the time only,',
            'never your endpoint\u2019s response body or headers. A failure of your endpoint (non-2xx, timeout, network',
            'error) is still a 200 answer: `data.delivered` is false and `status_code` / `error` say why. Not retried.',
          ].join(' '),
          body: WebhookRef,
          response: { 200: Envelope(TestCallOutcome), ...partnerErrors, ...forbiddenError, ...notFoundError('Webhook') },
        },
      },
      async (request) => {
        const data = await testWebhook(ctx, partnerOf(request), request.body, partnerAudit(request));
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
          summary: 'Recover a webhook endpoint after an outage (extension)',
          description: [
            'Once your endpoint is up again: every delivery to it that failed or is waiting for a retry, created since',
            '`since` (default: 24 hours ago; at most 7 days ago), is attempted again now instead of at its next retry.',
            'Answers how many were scheduled (`data.scheduled`); they arrive within moments, each with its original',
            '`webhook-id`. Deliveries already delivered are not sent again. 409 when the endpoint is disabled (ask the',
            'pharmacy to re-enable it).',
          ].join(' '),
          body: RecoverWebhookBody,
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
