import type { AuditContext } from '../audit/audit-actor.js';
import { eventTypesOf } from '../events/event-type-filter.js';
import type { AuditedReadContext, KeyringContext, ServiceContext } from '../context.js';
import type { Page } from '../db/keyset-page.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { optionalInstant } from '../shared/instants.js';
import { attemptErrorKind, lastErrorForPartner } from '../webhooks/attempt-error.js';
import type { DeliveryWithUrl } from '../delivery/delivery.repository.js';
import { listClinicDeliveries } from '../webhooks/delivery-log.service.js';
import type { EndpointLimits } from '../delivery/endpoint-limits.js';
import { disableEndpointOfClinic } from '../webhooks/endpoint-state.service.js';
import { recoverEndpointForPartner } from '../webhooks/recovery.service.js';
import { previousSecretExpiresAt, rotateEndpointSecret } from '../webhooks/secret-rotation.service.js';
import { enableEndpointRow, getDelivery, retryDelivery } from '../webhooks/webhook-operator.service.js';
import type { DeliveryView, TestCallOutcomeView } from '../webhooks/webhook.schemas.js';
import { testEndpoint } from '../webhooks/test-call.service.js';
import { changeEndpointLimits, createEndpoint, listEndpointsOfClinic } from '../webhooks/webhook.service.js';
import type { WebhookEndpointTable } from '../delivery/webhook.tables.js';
import type { PartnerUserIdentity } from './partner-user-identity.js';
import type {
  PortalCreateEndpointBody,
  PortalDeliveryDetailView,
  PortalDeliveryQuery,
  PortalDeliveryView,
  PortalEndpointView,
} from './portal-webhooks.schemas.js';

/*
 * The partner portal's webhooks (docs/portal.md, "Webhooks"): the partner API's and the operator's
 * webhook services, each scoped to the portal user's clinic (another clinic's ids are not found),
 * their answers mapped to the portal's views. The routes check the role; these take the user.
 */

type PortalWebhookContext = ServiceContext & AuditedReadContext & KeyringContext;

/** The portal user as the partner API's services know a caller: its clinic, with every scope. */
const identityOf = (user: PartnerUserIdentity): PartnerIdentity => ({ clinicId: user.clinicId });

export async function listPortalEndpoints(ctx: PortalWebhookContext, user: PartnerUserIdentity, audit: AuditContext) {
  const rows = await listEndpointsOfClinic(ctx, user.clinicId, audit);
  const now = ctx.clock();
  return { webhooks: rows.map((row) => toPortalEndpoint(row, now)) };
}

/** Registers an endpoint by the partner API's rules (URL checks, at most 10, one URL once); the secret is shown once. */
export async function addPortalEndpoint(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  body: PortalCreateEndpointBody,
  audit: AuditContext,
) {
  const { url, ...limits } = body;
  const { endpoint, secret } = await createEndpoint(ctx, user.clinicId, { webhook_url: url, ...limits }, audit, {
    urlField: 'url',
  });
  return { webhook: toPortalEndpoint(endpoint, ctx.clock()), secret };
}

export async function patchPortalEndpoint(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  webhookId: string,
  limits: EndpointLimits,
  audit: AuditContext,
): Promise<PortalEndpointView> {
  return toPortalEndpoint(await changeEndpointLimits(ctx, user.clinicId, webhookId, limits, audit), ctx.clock());
}

export async function disablePortalEndpoint(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  webhookId: string,
  audit: AuditContext,
): Promise<PortalEndpointView> {
  const reason = `disabled in the partner portal by ${user.email}`;
  return toPortalEndpoint(await disableEndpointOfClinic(ctx, user.clinicId, webhookId, reason, audit), ctx.clock());
}

/** Enables a disabled endpoint (its failed deliveries are not sent again: recover them, or resend some). */
export async function enablePortalEndpoint(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  webhookId: string,
  audit: AuditContext,
): Promise<PortalEndpointView> {
  const { endpoint } = await enableEndpointRow(ctx, webhookId, false, audit, { clinicId: user.clinicId });
  return toPortalEndpoint(endpoint, ctx.clock());
}

export async function rotatePortalEndpointSecret(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  webhookId: string,
  previousValidHours: number | undefined,
  audit: AuditContext,
) {
  const { endpoint, secret } = await rotateEndpointSecret(ctx, user.clinicId, webhookId, previousValidHours, audit);
  return { webhook: toPortalEndpoint(endpoint, ctx.clock()), secret };
}

export async function testPortalEndpoint(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  webhookId: string,
  audit: AuditContext,
): Promise<TestCallOutcomeView> {
  return testEndpoint(ctx, identityOf(user), { clinic_id: user.clinicId, webhook_id: webhookId }, audit);
}

export async function recoverPortalEndpoint(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  webhookId: string,
  since: string | undefined,
  audit: AuditContext,
): Promise<{ requeued: number }> {
  const input = { clinic_id: user.clinicId, webhook_id: webhookId, since };
  const { scheduled } = await recoverEndpointForPartner(ctx, identityOf(user), input, audit);
  return { requeued: scheduled };
}

export async function listPortalDeliveries(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  query: PortalDeliveryQuery,
  audit: AuditContext,
): Promise<Page<PortalDeliveryView>> {
  const page = await listClinicDeliveries(
    ctx,
    user.clinicId,
    {
      status: query.status,
      eventType: query.event_type,
      endpointId: query.webhook_id,
      createdSince: optionalInstant(query.since, 'since'),
      createdUntil: optionalInstant(query.until, 'until'),
      cursor: query.cursor,
      limit: query.limit ?? 25,
    },
    audit,
  );
  return { items: page.items.map(fromRow), next_cursor: page.next_cursor };
}

/** One delivery of the clinic with every attempt (status, duration, the kind of error, throttled). */
export async function getPortalDelivery(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  deliveryId: string,
  audit: AuditContext,
): Promise<PortalDeliveryDetailView> {
  const delivery = await getDelivery(ctx, deliveryId, audit, { clinicId: user.clinicId });
  return {
    ...fromView(delivery),
    attempts: delivery.attempts.map((a) => ({
      attempted_at: a.attempted_at,
      response_status: a.response_status,
      duration_ms: a.duration_ms,
      error: attemptErrorKind(a.response_status, a.error),
      throttled: a.throttled,
    })),
  };
}

/** Queues one delivery of the clinic for an attempt now (the operator's retry, scoped to the clinic). */
export async function resendPortalDelivery(
  ctx: PortalWebhookContext,
  user: PartnerUserIdentity,
  deliveryId: string,
  audit: AuditContext,
): Promise<PortalDeliveryView> {
  return fromView(await retryDelivery(ctx, deliveryId, audit, { clinicId: user.clinicId }));
}

function toPortalEndpoint(row: WebhookEndpointTable, now: Date): PortalEndpointView {
  return {
    webhook_id: row.id,
    url: row.url,
    status: row.status,
    max_in_flight: row.max_in_flight,
    max_per_second: row.max_per_second,
    event_types: eventTypesOf(row.event_types),
    paused_until: row.paused_until !== null && Date.parse(row.paused_until) > now.getTime() ? row.paused_until : null,
    failing_since: row.failing_since,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    previous_secret_expires_at: previousSecretExpiresAt(row, now),
  };
}

function fromRow(row: DeliveryWithUrl): PortalDeliveryView {
  return {
    delivery_id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    webhook_id: row.endpoint_id,
    url: row.url,
    status: row.status,
    attempt_count: row.attempt_count,
    last_response_status: row.last_response_status,
    last_error: lastErrorForPartner(row.last_error),
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

function fromView(view: DeliveryView): PortalDeliveryView {
  return {
    delivery_id: view.delivery_id,
    event_id: view.event_id,
    event_type: view.event_type,
    webhook_id: view.webhook_id,
    url: view.webhook_url,
    status: view.status,
    attempt_count: view.attempt_count,
    last_response_status: view.last_response_status,
    last_error: lastErrorForPartner(view.last_error),
    next_attempt_at: view.next_attempt_at,
    created_at: view.created_at,
    delivered_at: view.delivered_at,
  };
}
