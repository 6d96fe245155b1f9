import type { AuditedReadContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { attemptErrorKind } from './attempt-error.js';
import * as deliveries from '../delivery/delivery.repository.js';
import type { PartnerAttemptView, PartnerDeliveryQuery, PartnerDeliveryView } from './webhook.schemas.js';
import type { WebhookDeliveryAttemptTable } from '../delivery/webhook.tables.js';

/**
 * GET /api/external/webhook/deliveries: a page of the clinic's own delivery log, newest first, each
 * delivery with its attempts (two queries a page). Scoped to the API key's clinic: another clinic's
 * endpoint id matches nothing. Each delivery listed is audited as a read, as the operator's are.
 */
export async function listDeliveriesForPartner(
  ctx: AuditedReadContext,
  identity: PartnerIdentity,
  query: PartnerDeliveryQuery,
  audit: AuditContext,
): Promise<Page<PartnerDeliveryView>> {
  const limit = query.limit ?? 50;
  const rows = await deliveries.listDeliveriesOfClinic(
    ctx.db,
    identity.clinicId,
    {
      status: query.status,
      eventType: query.event_type,
      endpointId: query.webhook_id,
      before: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    },
    limit + 1,
  );
  const listed = rows.slice(0, limit);
  const attempts = await deliveries.listAttemptsOfDeliveries(
    ctx.db,
    listed.map((row) => row.id),
  );
  const page = toPage(rows, limit, () =>
    listed.map((row) =>
      toPartnerDelivery(
        row,
        attempts.filter((a) => a.delivery_id === row.id),
      ),
    ),
  );
  await ctx.audit.recordReads(
    audit,
    listed.map((row) => ({ type: 'webhook_delivery', id: row.id, clinicId: row.clinic_id })),
  );
  return page;
}

function toPartnerDelivery(row: deliveries.DeliveryWithUrl, attempts: WebhookDeliveryAttemptTable[]): PartnerDeliveryView {
  return {
    delivery_id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    webhook_id: row.endpoint_id,
    webhook_url: row.url,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
    attempts: attempts.map(toPartnerAttempt),
  };
}

function toPartnerAttempt(row: WebhookDeliveryAttemptTable): PartnerAttemptView {
  return {
    attempt_number: row.attempt_number,
    attempted_at: row.attempted_at,
    duration_ms: row.duration_ms,
    status_code: row.response_status,
    error: attemptErrorKind(row.response_status, row.error),
    throttled: row.throttled === 1,
  };
}

/**
 * A page of one clinic's deliveries (the partner portal's log), newest first, without their attempts,
 * filtered by status, event type, endpoint and creation time (`since` included, `until` excluded).
 * Each one listed is audited as a read.
 */
export async function listClinicDeliveries(
  ctx: AuditedReadContext,
  clinicId: string,
  filter: Omit<deliveries.DeliveryFilter, 'clinicId' | 'before'> & { cursor?: string | undefined; limit: number },
  audit: AuditContext,
): Promise<Page<deliveries.DeliveryWithUrl>> {
  const { cursor, limit, ...where } = filter;
  const before = cursor === undefined ? undefined : decodeCursor(cursor);
  const rows = await deliveries.listDeliveriesOfClinic(ctx.db, clinicId, { ...where, before }, limit + 1);
  const page = toPage(rows, limit, (listed) => listed);
  await ctx.audit.recordReads(
    audit,
    page.items.map((row) => ({ type: 'webhook_delivery', id: row.id, clinicId: row.clinic_id })),
  );
  return page;
}
