import type { ReadContext } from '../context.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { notFound } from '../errors.js';
import type { OrderStatus } from './order-status.js';
import { loadOrderView, toAdminSummary } from './order-view.js';
import type { AdminOrderSummaryData } from './order-admin.schemas.js';
import type { OrderViewData } from './order.schemas.js';
import * as repo from './order.repository.js';

/** GET /api/admin/medication-requests: newest first, keyset-paginated (stable under inserts). */
export async function listOrders(
  ctx: ReadContext,
  query: { status?: OrderStatus; clinic_id?: string; limit?: number; cursor?: string },
): Promise<Page<AdminOrderSummaryData>> {
  const limit = query.limit ?? 50;
  const rows = await repo.listOrdersPage(ctx.db, {
    ...(query.status ? { status: query.status } : {}),
    ...(query.clinic_id ? { clinicId: query.clinic_id } : {}),
    ...(query.cursor ? { before: decodeCursor(query.cursor) } : {}),
    limit: limit + 1,
  });
  const counts = await repo.countItemsOfOrders(ctx.db, rows.slice(0, limit).map((r) => r.id));
  return toPage(rows, limit, (page) => page.map((r) => toAdminSummary(r, counts.get(r.id) ?? 0)));
}

/** GET /api/admin/medication-requests/{id}: any clinic's order, in full (what the pharmacy fills). */
export async function getOrderForOperator(ctx: ReadContext, orderId: string): Promise<OrderViewData> {
  const order = await repo.findOrderUnscoped(ctx.db, orderId);
  if (!order) throw notFound('Medication request not found');
  return loadOrderView(ctx.db, order);
}
