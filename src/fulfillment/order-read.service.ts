import { notFoundIn } from '../audit/denied-access.js';
import type { AuditedReadContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { loadOrderView, loadOrderViews } from './order-view.js';
import { findOrderWithItems } from './order-rows.repository.js';
import type { ListOrdersQuery, OrderViewData } from './order-view.schemas.js';
import * as repo from '../orders/order.repository.js';
import { listLotOrdersOfClinic } from '../compounding/recall.repository.js';

/* A partner's reads of its orders: one, or a page. Each order shown is a read in the audit trail. */

/** GET /api/external/medication-order/{id}: another clinic's order is not found. Audited as a read. */
export async function getOrder(
  ctx: AuditedReadContext,
  identity: PartnerIdentity,
  orderId: string,
  audit: AuditContext,
): Promise<OrderViewData> {
  // The order with its items and their fills, in one query (order-rows.repository.ts).
  const found = await findOrderWithItems(ctx.db, identity.clinicId, orderId);
  if (!found) throw notFoundIn({ type: 'medication_request', id: orderId }, 'Medication request not found');
  const { order } = found;
  // The read is committed before the answer leaves; the view is loaded meanwhile.
  const recorded = ctx.audit.recordReads(audit, [{ type: 'medication_request', id: order.id, clinicId: order.clinic_id }]);
  const view = await loadOrderView(ctx.db, order, found);
  await recorded;
  return view;
}

/**
 * GET /api/external/medication-orders: a page of the clinic's orders, newest first, each as
 * `GET /api/external/medication-order/{id}` shows it, loaded for the whole page at once (five queries
 * a page, whatever its length). Another clinic's patient matches nothing; `lot_number` keeps the
 * orders that received the lot (a recall: recall.repository.ts). Each order listed is audited as a
 * read, as its single GET is.
 */
export async function listOrders(
  ctx: AuditedReadContext,
  identity: PartnerIdentity,
  query: ListOrdersQuery,
  audit: AuditContext,
): Promise<Page<OrderViewData>> {
  const limit = query.limit ?? 50;
  const filter = {
    status: query.status,
    patientId: query.patient_id,
    before: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    limit: limit + 1,
  };
  const rows =
    query.lot_number === undefined
      ? await repo.listOrdersOfClinic(ctx.db, identity.clinicId, filter)
      : await listLotOrdersOfClinic(ctx.db, identity.clinicId, query.lot_number, filter);
  const listed = rows.slice(0, limit);
  const views = await loadOrderViews(ctx.db, listed);
  const page = toPage(rows, limit, () => views);
  await ctx.audit.recordReads(
    audit,
    listed.map((order) => ({ type: 'medication_request', id: order.id, clinicId: order.clinic_id })),
  );
  return page;
}
