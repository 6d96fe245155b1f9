import type { AppContext } from '../context.js';
import { fieldError, notFound } from '../errors.js';
import type { OrderStatus } from './order-status.js';
import { loadOrderView, toAdminSummary } from './order-view.js';
import type { AdminOrderSummaryData } from './order-admin.schemas.js';
import type { OrderViewData } from './order.schemas.js';
import * as repo from './order.repository.js';

/** The position after which the next page starts: the last row's (created_at, id), opaque to clients. */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the validation error.
  }
  throw fieldError('cursor', 'is not a cursor this API returned');
}

/** GET /api/admin/medication-requests: newest first, keyset-paginated (stable under inserts). */
export async function listOrders(
  ctx: Pick<AppContext, 'db'>,
  query: { status?: OrderStatus; clinic_id?: string; limit?: number; cursor?: string },
): Promise<{ items: AdminOrderSummaryData[]; next_cursor: string | null }> {
  const limit = query.limit ?? 50;
  const rows = await repo.listOrdersPage(ctx.db, {
    ...(query.status ? { status: query.status } : {}),
    ...(query.clinic_id ? { clinicId: query.clinic_id } : {}),
    ...(query.cursor ? { before: decodeCursor(query.cursor) } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const counts = await repo.countItemsOfOrders(ctx.db, page.map((r) => r.id));
  const last = page[page.length - 1];
  return {
    items: page.map((r) => toAdminSummary(r, counts.get(r.id) ?? 0)),
    next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
  };
}

/** GET /api/admin/medication-requests/{id}: any clinic's order, in full (what the pharmacy fills). */
export async function getOrderForOperator(ctx: Pick<AppContext, 'db'>, orderId: string): Promise<OrderViewData> {
  const order = await repo.findOrderUnscoped(ctx.db, orderId);
  if (!order) throw notFound('Medication request not found');
  return loadOrderView(ctx.db, order);
}
