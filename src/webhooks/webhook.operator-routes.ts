import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { operatorErrors, conflictError, Envelope, Page } from '../contracts/schemas.js';
import {
  Delivery,
  DeliveryDetail,
  DeliveryIdParams,
  DeliveryListQuery,
  EnabledEndpoint,
  EnableEndpointQuery,
  EndpointIdParams,
  OperatorEndpointPage,
  OperatorEndpointQuery,
  RecoverEndpointBody,
  RecoverEndpointParams,
  Recovered,
} from './webhook.schemas.js';
import { recoverEndpointForOperator } from './recovery.service.js';
import { enableEndpoint, getDelivery, listDeliveries, listEndpoints, retryDelivery } from './webhook-operator.service.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';

const tags = ['Operator'];
const security = [{ operatorToken: [] }];

/** The operator's webhook tools: the delivery log, replay, endpoint states. See docs/webhooks.md. */
export function webhookOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/webhook-deliveries',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorWebhookDeliveries',
          summary: 'List webhook deliveries',
          description: 'Newest first; pass `next_cursor` as `cursor` for the next page.',
          querystring: DeliveryListQuery,
          response: { 200: Envelope(Page(Delivery)), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listDeliveries(ctx, request.query, operatorAudit(request)),
        message: 'Webhook deliveries',
      }),
    );

    app.get(
      '/api/admin/webhook-deliveries/:id',
      {
        schema: {
          tags,
          security,
          operationId: 'getOperatorWebhookDelivery',
          summary: 'A webhook delivery with its attempts',
          params: DeliveryIdParams,
          response: { 200: Envelope(DeliveryDetail), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await getDelivery(ctx, request.params.id, operatorAudit(request)),
        message: 'Webhook delivery',
      }),
    );

    app.post(
      '/api/admin/webhook-deliveries/:id/retry',
      {
        schema: {
          tags,
          security,
          operationId: 'retryOperatorWebhookDelivery',
          summary: 'Deliver a webhook again now',
          description:
            'Queues the delivery for an attempt now (a failed one, a delivered one to replay, or a pending one without waiting); the worker sends it within moments. Answers with the delivery as queued; follow it with GET. 409 when its endpoint is disabled or deleted, or an attempt is in progress.',
          params: DeliveryIdParams,
          response: {
            200: Envelope(Delivery),
            ...operatorErrors,
            ...conflictError('Endpoint disabled or deleted, or an attempt in progress.'),
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: await retryDelivery(ctx, request.params.id, operatorAudit(request)),
        message: 'Webhook delivery queued for an attempt now',
      }),
    );

    app.get(
      '/api/admin/webhook-endpoints',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorWebhookEndpoints',
          summary: 'List webhook endpoints and their state',
          description:
            'Live (not deleted) endpoints of every clinic, or of one, newest first; never their secrets. Pass `next_cursor` as `cursor` for the next page.',
          querystring: OperatorEndpointQuery,
          response: { 200: Envelope(OperatorEndpointPage), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listEndpoints(ctx, request.query, operatorAudit(request)),
        message: 'Webhook endpoints',
      }),
    );

    app.post(
      '/api/admin/webhook-endpoints/:id/enable',
      {
        schema: {
          tags,
          security,
          operationId: 'enableOperatorWebhookEndpoint',
          summary: 'Re-enable a disabled webhook endpoint',
          description:
            'Its failure streak starts afresh. With `redeliver_failed=true`, its failed deliveries are queued again, due now.',
          params: EndpointIdParams,
          querystring: EnableEndpointQuery,
          response: { 200: Envelope(EnabledEndpoint), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await enableEndpoint(ctx, request.params.id, request.query.redeliver_failed ?? false, operatorAudit(request)),
        message: 'Webhook endpoint enabled',
      }),
    );

    app.post(
      '/api/admin/webhook-endpoints/:webhookId/recover',
      {
        schema: {
          tags,
          security,
          operationId: 'recoverOperatorWebhookEndpoint',
          summary: 'Recover a webhook endpoint after an outage',
          description: [
            'Makes every failed or waiting delivery of the endpoint created since `since` (default: 24 hours ago; at most',
            '7 days ago) due now; the worker sends them within moments. Deliveries in flight, delivered ones and test',
            'calls are left alone. The body is optional. Answers how many were scheduled (`data.scheduled`).',
            '409 when the endpoint is disabled (enable it first); 404 when it is unknown or deleted.',
          ].join(' '),
          params: RecoverEndpointParams,
          body: RecoverEndpointBody,
          response: {
            200: Envelope(Recovered),
            ...operatorErrors,
            ...conflictError('The endpoint is disabled: re-enable it first.'),
          },
        },
        // The body is optional: none (or an empty one) means the defaults, validated as `{}`.
        preValidation: emptyBodyWhenAbsent,
      },
      async (request) => {
        const data = await recoverEndpointForOperator(ctx, request.params.webhookId, request.body.since, operatorAudit(request));
        return {
          success: true as const,
          data,
          message: `${data.scheduled} webhook deliver${data.scheduled === 1 ? 'y' : 'ies'} scheduled for an attempt now`,
        };
      },
    );
  };
}
