import type { AuditContext } from '../audit/audit-actor.js';
import type { ReadContext, ServiceContext } from '../context.js';
import type { OrderStatus } from '../orders/order-status.js';
import { HOLD_REASONS, holdReasonOf, type HoldReason } from '../holds/hold-reasons.js';
import { answerHold } from '../holds/answer-hold.service.js';
import { decodeHoldCursor, encodeHoldCursor, partOf } from '../holds/held-orders-cursor.js';
import { listHeldOrders } from '../holds/held-orders.service.js';
import { holdOf } from '../holds/hold-view.js';
import { loadOrderViews } from '../fulfillment/order-view.js';
import type { HoldResponseInput } from '../holds/hold.schemas.js';
import type { PartnerUserIdentity } from './partner-user-identity.js';
import type { PortalHoldAnswerView, PortalHoldPageView, PortalHoldsQuery, PortalHoldView } from './portal-holds.schemas.js';

/*
 * "Needs your answer" (docs/portal.md): the clinic's orders on hold as the partner API shows them,
 * with what resolves each, and the portal user's answer through the core's own answerHold, so that
 * the history and the audit trail name the person.
 */

/** A page of the clinic's orders on hold: waiting on the partner first, then on the pharmacy; oldest hold first. */
export async function listHolds(
  ctx: ReadContext,
  user: PartnerUserIdentity,
  query: PortalHoldsQuery,
): Promise<PortalHoldPageView> {
  const limit = query.limit ?? 50;
  const after = query.cursor === undefined ? undefined : decodeHoldCursor(query.cursor);
  const { rows, counts } = await listHeldOrders(ctx, user.clinicId, { after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const views = await loadOrderViews(ctx.db, page);
  const items: PortalHoldView[] = [];
  page.forEach((row, index) => {
    const hold = views[index]?.hold;
    // Listed as on hold: a row whose hold ended between the two reads is left out of this page.
    if (!hold || (row.held_from !== 'pending' && row.held_from !== 'processing' && row.held_from !== 'shipped')) return;
    items.push({
      medication_request_id: row.id,
      created_at: row.created_at,
      held_from: row.held_from,
      hold,
      answer: holdReasonOf(hold.reason_code)?.answer ?? '',
      answered_at: row.hold_answered_at ?? null,
      hold_history: views[index]?.hold_history ?? [],
    });
  });
  const last = page[page.length - 1];
  return {
    items,
    next_cursor:
      rows.length > limit && last?.hold_since
        ? encodeHoldCursor({ part: partOf(last), at: { createdAt: last.hold_since, id: last.id } })
        : null,
    waiting_on_partner: counts.partner,
    waiting_on_pharmacy: counts.pharmacy,
  };
}

/**
 * The portal user's answer to a hold of the clinic's order: exactly the partner API's
 * hold-response (answerHold), audited as the portal user. 404 for another clinic's order, 409 when
 * the order is not on hold.
 */
export async function answerHoldInPortal(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  orderId: string,
  input: HoldResponseInput,
  audit: AuditContext,
): Promise<PortalHoldAnswerView> {
  const order = await answerHold(ctx, user.clinicId, orderId, input, audit);
  return { medication_request_id: order.id, status: order.status as OrderStatus, hold: holdOf(order) };
}

/** The catalog of hold reasons, as the partner API's GET /api/external/hold-reasons answers it. */
export function holdReasons(): readonly HoldReason[] {
  return HOLD_REASONS;
}
