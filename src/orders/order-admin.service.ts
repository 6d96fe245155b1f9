import type { AuditedReadContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { notFound } from '../errors.js';
import type { OrderStatus } from './order-status.js';
import { loadOrderView } from './order-view.js';
import { toAdminDetail, toAdminSummary } from './order-admin-view.js';
import type { AdminOrderDetailData, AdminOrderSummaryData } from './order-admin.schemas.js';
import * as adminRepo from './order-admin.repository.js';
import * as repo from './order.repository.js';

export interface AdminListFilters {
  status?: OrderStatus;
  clinic_id?: string;
  medication_request_id?: string;
  limit?: number;
  cursor?: string;
}

/**
 * GET /api/admin/medication-requests: the fulfillment queue, newest first, keyset-paginated (stable
 * under inserts), with each order's clinic and patient names and item count (three queries a page).
 * Every order listed is audited as read by the operator, and so is every patient whose name is shown.
 */
export async function listOrders(
  ctx: AuditedReadContext,
  query: AdminListFilters,
  audit: AuditContext,
): Promise<Page<AdminOrderSummaryData>> {
  const limit = query.limit ?? 50;
  const rows = await adminRepo.listOrdersPage(ctx.db, {
    ...(query.status ? { status: query.status } : {}),
    ...(query.clinic_id ? { clinicId: query.clinic_id } : {}),
    ...(query.medication_request_id ? { orderId: query.medication_request_id } : {}),
    ...(query.cursor ? { before: decodeCursor(query.cursor) } : {}),
    limit: limit + 1,
  });
  const counts = await adminRepo.countItemsOfOrders(
    ctx.db,
    rows.slice(0, limit).map((r) => r.id),
  );
  const page = toPage(rows, limit, (listed) => listed.map((r) => toAdminSummary(r, counts.get(r.id) ?? 0)));
  await ctx.audit.recordReads(audit, [
    ...page.items.map((r): AuditedResource => ({
      type: 'medication_request',
      id: r.medication_request_id,
      clinicId: r.clinic_id,
    })),
    ...patientsOf(page.items),
  ]);
  return page;
}

/** One read per patient shown, however many of their orders the page lists. */
function patientsOf(orders: { patient_id: string; clinic_id: string }[]): AuditedResource[] {
  const byId = new Map(orders.map((o) => [o.patient_id, o.clinic_id]));
  return [...byId].map(([id, clinicId]) => ({ type: 'patient', id, clinicId }));
}

/**
 * GET /api/admin/medication-requests/{id}: any clinic's order in full (what the pharmacy fills), with
 * the patient's name and shipping address and the orders of its refill chain. Audited as reads of the
 * order, of its patient, and of the chain's other orders.
 */
export async function getOrderForOperator(
  ctx: AuditedReadContext,
  orderId: string,
  audit: AuditContext,
): Promise<AdminOrderDetailData> {
  const order = await repo.findOrderUnscoped(ctx.db, orderId);
  if (!order) throw notFound('Medication request not found');
  const [view, history, party, chain] = await Promise.all([
    loadOrderView(ctx.db, order),
    // The partner's view names nobody; the pharmacy's names who made each change.
    repo.listHistories(ctx.db, [order.id]),
    adminRepo.findShippingParty(ctx.db, order),
    adminRepo.listChain(ctx.db, order.chain_origin_id ?? order.id),
  ]);
  // The foreign keys make this impossible; the guard tells the type checker.
  if (!party) throw new Error(`Order ${order.id} has no patient ${order.patient_id} in its clinic`);
  await ctx.audit.recordReads(audit, [
    { type: 'medication_request', id: order.id, clinicId: order.clinic_id },
    { type: 'patient', id: order.patient_id, clinicId: order.clinic_id },
    ...chain
      .filter((row) => row.id !== order.id)
      .map((row): AuditedResource => ({ type: 'medication_request', id: row.id, clinicId: order.clinic_id })),
  ]);
  return toAdminDetail(view, history, party, chain);
}
