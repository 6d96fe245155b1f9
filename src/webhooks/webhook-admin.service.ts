import type { AppContext } from '../context.js';
import { isoNow } from '../db/time.js';
import { conflict, fieldError, notFound } from '../errors.js';
import * as deliveries from './delivery.repository.js';
import * as repo from './webhook.repository.js';
import { toEndpointView, type WebhookEndpointView } from './webhook.service.js';
import type { DeliveryStatus, EndpointStatus, WebhookDeliveryAttemptTable, WebhookEndpointTable } from './webhook.tables.js';
import { wakeWorkers } from './wakeup.js';

/** The operator's tools: the delivery log, replay, and endpoint states. Unscoped: the operator sees every clinic. */

type Ctx = Pick<AppContext, 'db' | 'dialect' | 'clock' | 'outbox'>;

export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  event_type: string;
  clinic_id: string;
  webhook_id: string;
  webhook_url: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

export interface AttemptView {
  attempt_number: number;
  attempted_at: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

export interface DeliveryFilterInput {
  status?: DeliveryStatus | undefined;
  clinic_id?: string | undefined;
  event_type?: string | undefined;
  webhook_id?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A page of deliveries, newest first; `next_cursor` continues after the last one. */
export async function listDeliveries(ctx: Ctx, filter: DeliveryFilterInput): Promise<{ items: DeliveryView[]; next_cursor: string | null }> {
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
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toDeliveryView),
    next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
  };
}

/** One delivery with every attempt and the exact body sent. */
export async function getDelivery(ctx: Ctx, deliveryId: string): Promise<DeliveryView & { body: string; attempts: AttemptView[] }> {
  const row = await deliveries.findDeliveryWithUrl(ctx.db, deliveryId);
  if (!row) throw notFound('Webhook delivery not found');
  const attempts = await deliveries.listAttempts(ctx.db, deliveryId);
  return { ...toDeliveryView(row), body: row.body, attempts: attempts.map(toAttemptView) };
}

/**
 * Delivers a delivery again now (replay): a failed one after its attempts ran out, a delivered one
 * that the partner lost, or a pending one without waiting for its next scheduled attempt. The
 * worker makes the attempt (this answers at once, with the delivery queued); if it fails, the
 * schedule continues from the attempts already made, so an exhausted delivery fails again.
 */
export async function retryDelivery(ctx: Ctx, deliveryId: string): Promise<DeliveryView> {
  const queued = await ctx.db.transaction().execute(async (trx) => {
    const row = await deliveries.findDeliveryForUpdate(trx, deliveryId, ctx.dialect);
    if (!row) throw notFound('Webhook delivery not found');
    const endpoint = await repo.findEndpointById(trx, row.endpoint_id);
    if (!endpoint || endpoint.deleted_at !== null) throw conflict('The webhook endpoint of this delivery has been deleted');
    if (endpoint.status !== 'active') {
      throw conflict('The webhook endpoint of this delivery is disabled; enable it first (POST /api/admin/webhook-endpoints/{id}/enable)');
    }
    const now = isoNow(ctx.clock);
    if (row.claimed_until !== null && row.claimed_until > now) throw conflict('An attempt of this delivery is in progress; try again shortly');
    await deliveries.updateDelivery(trx, deliveryId, {
      status: 'pending',
      next_attempt_at: now,
      claimed_until: null,
      claim_token: null,
      updated_at: now,
    });
    return toDeliveryView({ ...row, url: endpoint.url, status: 'pending', next_attempt_at: now, claimed_until: null, claim_token: null, updated_at: now });
  });
  await wakeWorkers(ctx);
  return queued;
}

export type OperatorEndpointView = WebhookEndpointView & { failing_since: string | null };

export async function listEndpoints(ctx: Ctx, filter: { clinic_id?: string | undefined; status?: EndpointStatus | undefined }): Promise<OperatorEndpointView[]> {
  const rows = await repo.listEndpointsForOperator(ctx.db, { clinicId: filter.clinic_id, status: filter.status });
  return rows.map(toOperatorEndpoint);
}

/**
 * Re-enables a disabled endpoint (its failure streak starts afresh). With `redeliverFailed`, its
 * failed deliveries are queued again, due now: the events it missed while failing.
 */
export async function enableEndpoint(ctx: Ctx, endpointId: string, redeliverFailed: boolean): Promise<OperatorEndpointView & { redelivered: number }> {
  let redelivered = 0;
  await ctx.db.transaction().execute(async (trx) => {
    const endpoint = await repo.findEndpointById(trx, endpointId);
    if (!endpoint || endpoint.deleted_at !== null) throw notFound('Webhook endpoint not found');
    await repo.enableEndpoint(trx, endpointId);
    if (redeliverFailed) redelivered = await deliveries.requeueFailedOfEndpoint(trx, endpointId, isoNow(ctx.clock));
  });
  if (redelivered > 0) await wakeWorkers(ctx);
  const row = await repo.findEndpointById(ctx.db, endpointId);
  // Deleted by another request since the transaction committed.
  if (!row) throw notFound('Webhook endpoint not found');
  return { ...toOperatorEndpoint(row), redelivered };
}

function toOperatorEndpoint(row: WebhookEndpointTable): OperatorEndpointView {
  return { ...toEndpointView(row), failing_since: row.failing_since };
}

function toDeliveryView(row: deliveries.DeliveryWithUrl): DeliveryView {
  return {
    delivery_id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    clinic_id: row.clinic_id,
    webhook_id: row.endpoint_id,
    webhook_url: row.url,
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

function toAttemptView(row: WebhookDeliveryAttemptTable): AttemptView {
  return {
    attempt_number: row.attempt_number,
    attempted_at: row.attempted_at,
    duration_ms: row.duration_ms,
    response_status: row.response_status,
    response_body: row.response_body,
    error: row.error,
  };
}

function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the error below.
  }
  throw fieldError('cursor', 'is not a valid cursor (use next_cursor from the previous page)');
}
