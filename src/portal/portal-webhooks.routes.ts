// Over 250 lines: the portal's eleven webhook routes, the portal's face of webhook.routes.ts over the same services.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import { Envelope, errorRef, portalErrors, portalSecurity } from '../contracts/schemas.js';
import { RecoverEndpointBody, RotateSecretBody, TestCallOutcome, UpdateEndpointBody } from '../webhooks/webhook.schemas.js';
import { portalAudit } from '../http/audit-context.js';
import { portalDeveloperOf, partnerUserOf } from './partner-user-identity.js';
import {
  PortalCreateEndpointBody,
  PortalDelivery,
  PortalDeliveryDetail,
  PortalDeliveryPage,
  PortalDeliveryParams,
  PortalDeliveryQuery,
  PortalEndpoint,
  PortalEndpointList,
  PortalEndpointWithSecret,
  PortalRequeued,
  PortalWebhookParams,
} from './portal-webhooks.schemas.js';
import * as portal from './portal-webhooks.service.js';

const tags = ['Portal'];
const security = portalSecurity;
const conflict = (description: string) => ({ 409: errorRef(description) });

/**
 * The partner portal's webhooks (docs/portal.md, "Webhooks"): the clinic's endpoints and their
 * delivery log. Reads are open to viewers; every change needs the developer role (403 otherwise)
 * and is audited as the person's.
 */
export function portalWebhookRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  /** The developer making a change, and the audit context of it. */
  const developer = (request: FastifyRequest) => {
    const user = portalDeveloperOf(request);
    return { user, audit: portalAudit(request, user) };
  };
  const reader = (request: FastifyRequest) => {
    const user = partnerUserOf(request);
    return { user, audit: portalAudit(request, user) };
  };

  return async (app) => {
    app.get(
      '/api/portal/webhooks',
      {
        schema: {
          tags,
          security,
          operationId: 'portalListWebhooks',
          summary: 'Your clinic\u2019s webhook endpoints',
          description: 'Oldest first; never their secrets.',
          response: { 200: Envelope(PortalEndpointList), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = reader(request);
        return { success: true as const, data: await portal.listPortalEndpoints(ctx, user, audit), message: 'Webhooks' };
      },
    );

    app.post(
      '/api/portal/webhooks',
      {
        schema: {
          tags,
          security,
          operationId: 'portalCreateWebhook',
          summary: 'Add a webhook endpoint',
          description:
            'The partner API\u2019s rules: a public https URL (http too in development), at most 10 endpoints, one URL once. The signing secret is shown only in this answer.',
          body: PortalCreateEndpointBody,
          response: { 200: Envelope(PortalEndpointWithSecret), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = developer(request);
        const data = await portal.addPortalEndpoint(ctx, user, request.body, audit);
        return { success: true as const, data, message: 'Webhook added; store the secret: it is not shown again' };
      },
    );

    app.patch(
      '/api/portal/webhooks/:webhookId',
      {
        schema: {
          tags,
          security,
          operationId: 'portalUpdateWebhook',
          summary: 'Change a webhook endpoint\u2019s delivery limits and event types',
          description:
            'Sets the fields given (at least one), keeps the others; `max_per_second: null` removes that limit, `event_types: null` receives every type.',
          params: PortalWebhookParams,
          body: UpdateEndpointBody,
          response: { 200: Envelope(PortalEndpoint), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = developer(request);
        const data = await portal.patchPortalEndpoint(ctx, user, request.params.webhookId, request.body, audit);
        return { success: true as const, data, message: 'Webhook updated' };
      },
    );

    app.post(
      '/api/portal/webhooks/:webhookId/disable',
      {
        schema: {
          tags,
          security,
          operationId: 'portalDisableWebhook',
          summary: 'Disable a webhook endpoint',
          description:
            'Nothing more is sent to it; its waiting deliveries are marked failed (recover or resend them after enabling it). A disabled endpoint is answered as it is.',
          params: PortalWebhookParams,
          response: { 200: Envelope(PortalEndpoint), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = developer(request);
        const data = await portal.disablePortalEndpoint(ctx, user, request.params.webhookId, audit);
        return { success: true as const, data, message: 'Webhook disabled' };
      },
    );

    app.post(
      '/api/portal/webhooks/:webhookId/enable',
      {
        schema: {
          tags,
          security,
          operationId: 'portalEnableWebhook',
          summary: 'Enable a disabled webhook endpoint',
          description:
            'Its failure count starts afresh; new events are sent to it. Its failed deliveries are not sent again: recover them. An active endpoint is answered as it is.',
          params: PortalWebhookParams,
          response: { 200: Envelope(PortalEndpoint), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = developer(request);
        const data = await portal.enablePortalEndpoint(ctx, user, request.params.webhookId, audit);
        return { success: true as const, data, message: 'Webhook enabled' };
      },
    );

    app.post(
      '/api/portal/webhooks/:webhookId/rotate-secret',
      {
        schema: {
          tags,
          security,
          operationId: 'portalRotateWebhookSecret',
          summary: 'Rotate a webhook endpoint\u2019s signing secret',
          description:
            'A new secret, shown only in this answer; the previous one signs every attempt beside it until `previous_secret_expires_at` (`previous_valid_hours`, 0\u201324, default 24). The body is optional. See docs/webhooks.md, "Rotating the signing secret".',
          params: PortalWebhookParams,
          body: RotateSecretBody,
          response: { 200: Envelope(PortalEndpointWithSecret), ...portalErrors },
        },
        preValidation: emptyBodyWhenAbsent,
      },
      async (request) => {
        const { user, audit } = developer(request);
        const hours = request.body.previous_valid_hours;
        const data = await portal.rotatePortalEndpointSecret(ctx, user, request.params.webhookId, hours, audit);
        return { success: true as const, data, message: 'Signing secret rotated; store the new secret: it is not shown again' };
      },
    );

    app.post(
      '/api/portal/webhooks/:webhookId/test',
      {
        schema: {
          tags,
          security,
          operationId: 'portalTestWebhook',
          summary: 'Send a test event to a webhook endpoint',
          description:
            'A signed `webhook.test` event now; the answer says whether it was delivered (a failure of the endpoint is still a 200). Never retried.',
          params: PortalWebhookParams,
          response: { 200: Envelope(TestCallOutcome), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = developer(request);
        const data = await portal.testPortalEndpoint(ctx, user, request.params.webhookId, audit);
        return { success: true as const, data, message: data.delivered ? 'Test event delivered' : 'Test event not delivered' };
      },
    );

    app.post(
      '/api/portal/webhooks/:webhookId/recover',
      {
        schema: {
          tags,
          security,
          operationId: 'portalRecoverWebhook',
          summary: 'Recover a webhook endpoint after an outage',
          description:
            'Every failed or waiting delivery created since `since` (default 24 hours ago, at most 7 days) is attempted now. The body is optional. 409 when the endpoint is disabled (enable it first).',
          params: PortalWebhookParams,
          body: RecoverEndpointBody,
          response: { 200: Envelope(PortalRequeued), ...portalErrors, ...conflict('The endpoint is disabled: enable it first.') },
        },
        preValidation: emptyBodyWhenAbsent,
      },
      async (request) => {
        const { user, audit } = developer(request);
        const data = await portal.recoverPortalEndpoint(ctx, user, request.params.webhookId, request.body.since, audit);
        return { success: true as const, data, message: `${data.requeued} webhook deliveries queued for an attempt now` };
      },
    );

    app.get(
      '/api/portal/deliveries',
      {
        schema: {
          tags,
          security,
          operationId: 'portalListWebhookDeliveries',
          summary: 'Your clinic\u2019s webhook deliveries',
          description:
            'Newest first. Filters combine: `status`, `event_type`, `webhook_id`, `since` (created at or after) and `until` (created before). `limit` 1\u2013100 (25); pass `next_cursor` as `cursor` for the next page.',
          querystring: PortalDeliveryQuery,
          response: { 200: Envelope(PortalDeliveryPage), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = reader(request);
        const data = await portal.listPortalDeliveries(ctx, user, request.query, audit);
        return { success: true as const, data, message: 'Webhook deliveries' };
      },
    );

    app.get(
      '/api/portal/deliveries/:deliveryId',
      {
        schema: {
          tags,
          security,
          operationId: 'portalGetWebhookDelivery',
          summary: 'A webhook delivery with every attempt',
          params: PortalDeliveryParams,
          response: { 200: Envelope(PortalDeliveryDetail), ...portalErrors },
        },
      },
      async (request) => {
        const { user, audit } = reader(request);
        const data = await portal.getPortalDelivery(ctx, user, request.params.deliveryId, audit);
        return { success: true as const, data, message: 'Webhook delivery' };
      },
    );

    app.post(
      '/api/portal/deliveries/:deliveryId/resend',
      {
        schema: {
          tags,
          security,
          operationId: 'portalResendWebhookDelivery',
          summary: 'Send a webhook delivery again now',
          description:
            'Queues it for an attempt now (a failed one, a delivered one you lost, or a waiting one without waiting); the same `webhook-id`. 409 when its endpoint is disabled or deleted, or an attempt is under way.',
          params: PortalDeliveryParams,
          response: {
            200: Envelope(PortalDelivery),
            ...portalErrors,
            ...conflict('The endpoint is disabled or deleted, or an attempt is under way.'),
          },
        },
      },
      async (request) => {
        const { user, audit } = developer(request);
        const data = await portal.resendPortalDelivery(ctx, user, request.params.deliveryId, audit);
        return { success: true as const, data, message: 'Webhook delivery queued for an attempt now' };
      },
    );
  };
}
