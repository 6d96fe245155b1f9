import type { AuditedReadContext, ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { isoNow } from '../clock.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { notFoundIn } from '../audit/denied-access.js';
import { conflict, notFound } from '../errors.js';
import * as deliveries from '../delivery/delivery.repository.js';
import { lowerNextDue } from '../delivery/queue.repository.js';
import * as repo from './webhook.repository.js';
import type {
  AttemptView,
  DeliveryDetailView,
  DeliveryListQuery,
  DeliveryView,
  EnabledEndpointView,
  OperatorEndpointPageView,
  OperatorEndpointQuery,
  OperatorEndpointView,
} from './webhook.schemas.js';
import { toEndpointView } from './webhook.service.js';
import type { WebhookDeliveryAttemptTable, WebhookEndpointTable } from '../delivery/webhook.tables.js';

/** The operator's tools: the delivery log, replay, and endpoint states. Unscoped: the operator sees every clinic. */

/** A page of deliveries, newest first; `next_cursor` continues after the last one. Each one listed is audited as read. */
export async function listDeliveries(
  ctx: AuditedReadContext,
  filter: DeliveryListQuery,
  audit: AuditContext,
): Promise<Page<DeliveryView>> {
  const limit = filter.limit ?? 50;
  const rows = await deliveries.listDeliveries(
    ctx.db,
    {
      status: filter.status,
      clinicId: filter.clinic_id,
      eventType: filter.event_type,
      endpointId: filter.webhook_id,
      before: filter.cursor === undefined ? undefined : decodeCursor(filter.cursor),
    },
    limit + 1,
  );
  const page = toPage(rows, limit, (listed) => listed.map(toDeliveryView));
  await ctx.audit.recordReads(
    audit,
    page.items.map((d) => ({ type: 'webhook_delivery', id: d.delivery_id, clinicId: d.clinic_id })),
  );
  return page;
}

/**
 * One delivery with every attempt and the exact body sent. Audited as a read. With `scope` (the
 * partner portal), another clinic's delivery is not found, like an unknown one.
 */
export async function getDelivery(
  ctx: AuditedReadContext,
  deliveryId: string,
  audit: AuditContext,
  scope?: ClinicScope,
): Promise<DeliveryDetailView> {
  const row = await deliveries.findDeliveryWithUrl(ctx.db, deliveryId);
  if (!row || (scope && row.clinic_id !== scope.clinicId)) throw deliveryNotFound(deliveryId);
  await ctx.audit.recordReads(audit, [{ type: 'webhook_delivery', id: row.id, clinicId: row.clinic_id }]);
  const attempts = await deliveries.listAttempts(ctx.db, deliveryId);
  return { ...toDeliveryView(row), body: row.body, attempts: attempts.map(toAttemptView) };
}

/**
 * Delivers a delivery again now (replay): a failed one after its attempts ran out, a delivered one
 * that the partner lost, or a pending one without waiting for its next scheduled attempt. The
 * worker makes the attempt (this answers at once, with the delivery queued); if it fails, the
 * schedule continues from the attempts already made, so an exhausted delivery fails again.
 */
export async function retryDelivery(
  ctx: ServiceContext,
  deliveryId: string,
  audit: AuditContext,
  scope?: ClinicScope,
): Promise<DeliveryView> {
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const row = await deliveries.findDeliveryForUpdate(trx, deliveryId, ctx.dialect);
    if (!row || (scope && row.clinic_id !== scope.clinicId)) throw deliveryNotFound(deliveryId);
    const endpoint = await repo.findEndpointById(trx, row.endpoint_id);
    if (!endpoint || endpoint.deleted_at !== null) throw conflict('The webhook endpoint of this delivery has been deleted');
    if (endpoint.status !== 'active') {
      throw conflict(
        scope
          ? 'The webhook endpoint of this delivery is disabled; enable it first'
          : 'The webhook endpoint of this delivery is disabled; enable it first (POST /api/admin/webhook-endpoints/{id}/enable)',
      );
    }
    const now = isoNow(ctx.clock);
    if (row.claimed_until !== null && row.claimed_until > now)
      throw conflict('An attempt of this delivery is in progress; try again shortly');
    await deliveries.updateDelivery(trx, deliveryId, {
      status: 'pending',
      next_attempt_at: now,
      claimed_until: null,
      claim_token: null,
      updated_at: now,
    });
    await lowerNextDue(trx, [row.endpoint_id], now);
    change.audit('retry', { type: 'webhook_delivery', id: row.id, clinicId: row.clinic_id });
    change.wakeWorkers();
    return toDeliveryView({
      ...row,
      url: endpoint.url,
      status: 'pending',
      next_attempt_at: now,
      claimed_until: null,
      claim_token: null,
      updated_at: now,
    });
  });
}

/**
 * A page of live endpoints of every clinic, or of one, newest first; `next_cursor` continues after
 * the last one. Each one listed is audited as read.
 */
export async function listEndpoints(
  ctx: ServiceContext & AuditedReadContext,
  filter: OperatorEndpointQuery,
  audit: AuditContext,
): Promise<OperatorEndpointPageView> {
  const limit = filter.limit ?? 50;
  const rows = await repo.listEndpointsForOperator(
    ctx.db,
    {
      clinicId: filter.clinic_id,
      status: filter.status,
      before: filter.cursor === undefined ? undefined : decodeCursor(filter.cursor),
    },
    limit + 1,
  );
  const now = ctx.clock();
  const { items, next_cursor } = toPage(rows, limit, (listed) => listed.map((row) => toOperatorEndpoint(row, now)));
  await ctx.audit.recordReads(
    audit,
    items.map((endpoint) => ({ type: 'webhook_endpoint', id: endpoint.webhook_id, clinicId: endpoint.clinic_id })),
  );
  return { endpoints: items, next_cursor };
}

/**
 * Re-enables a disabled endpoint (its failure streak starts afresh). With `redeliverFailed`, its
 * failed deliveries are queued again, due now: the events it missed while failing.
 */
export async function enableEndpoint(
  ctx: ServiceContext,
  endpointId: string,
  redeliverFailed: boolean,
  audit: AuditContext,
): Promise<EnabledEndpointView> {
  const { endpoint, redelivered } = await enableEndpointRow(ctx, endpointId, redeliverFailed, audit);
  return { ...toOperatorEndpoint(endpoint, ctx.clock()), redelivered };
}

/**
 * `enableEndpoint`, answering the endpoint's row as it is after the change. With `scope` (the partner
 * portal), another clinic's endpoint is not found, like an unknown or deleted one.
 */
export async function enableEndpointRow(
  ctx: ServiceContext,
  endpointId: string,
  redeliverFailed: boolean,
  audit: AuditContext,
  scope?: ClinicScope,
): Promise<{ endpoint: WebhookEndpointTable; redelivered: number }> {
  const notFoundMessage = scope ? 'Webhook not found' : 'Webhook endpoint not found';
  const redelivered = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const endpoint = await repo.findEndpointById(trx, endpointId);
    if (!endpoint || endpoint.deleted_at !== null || (scope && endpoint.clinic_id !== scope.clinicId)) {
      throw notFoundIn({ type: 'webhook_endpoint', id: endpointId }, notFoundMessage);
    }
    // The partner's own enabling of an endpoint that is active changes nothing (its failure streak is kept).
    if (scope && endpoint.status === 'active') return 0;
    await repo.enableEndpoint(trx, endpointId);
    const now = isoNow(ctx.clock);
    const requeued = redeliverFailed ? await deliveries.requeueFailedOfEndpoint(trx, endpointId, now) : 0;
    if (requeued > 0) await lowerNextDue(trx, [endpointId], now);
    change.audit('update', { type: 'webhook_endpoint', id: endpoint.id, clinicId: endpoint.clinic_id });
    if (requeued > 0) change.wakeWorkers();
    return requeued;
  });
  const row = await repo.findEndpointById(ctx.db, endpointId);
  // Deleted by another request since the transaction committed.
  if (!row) throw notFound(notFoundMessage);
  return { endpoint: row, redelivered };
}

/** Limits an operator's service to one clinic (the partner portal's user): another clinic's ids are not found. */
export interface ClinicScope {
  clinicId: string;
}

const deliveryNotFound = (deliveryId: string) =>
  notFoundIn({ type: 'webhook_delivery', id: deliveryId }, 'Webhook delivery not found');

function toOperatorEndpoint(row: WebhookEndpointTable, now: Date): OperatorEndpointView {
  return { ...toEndpointView(row, now), failing_since: row.failing_since };
}

function toDeliveryView(row: deliveries.DeliveryWithUrl): DeliveryView {
  return {
    delivery_id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    clinic_id: row.clinic_id,
    webhook_id: row.endpoint_id,
    webhook_url: row.url,
    medication_request_id: orderOf(row.body),
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at,
    last_attempt_at: row.last_attempt_at,
    last_response_status: row.last_response_status,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
  };
}

/** The order a delivery's event is about: `data.medication_request_id` of the body sent (none for a test call). */
function orderOf(body: string): string | null {
  try {
    const event = JSON.parse(body) as { data?: { medication_request_id?: unknown } };
    const id = event.data?.medication_request_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

function toAttemptView(row: WebhookDeliveryAttemptTable): AttemptView {
  return {
    attempt_number: row.attempt_number,
    attempted_at: row.attempted_at,
    duration_ms: row.duration_ms,
    response_status: row.response_status,
    response_body: row.response_body,
    error: row.error,
    throttled: row.throttled === 1,
  };
}
