import type { ReadContext } from '../context.js';
import type { OrderTable } from '../orders/order.tables.js';
import type { HoldPart, HoldPosition } from './held-orders-cursor.js';
import * as repo from './held-orders.repository.js';

/**
 * A page of the clinic's orders on hold after `after` (at most `limit` rows: the caller asks one more
 * than it shows), waiting on the partner first, and how many of them wait on each side: the portal's
 * "Needs your answer" (portal/portal-holds.service.ts).
 */
export async function listHeldOrders(
  ctx: ReadContext,
  clinicId: string,
  filter: { after?: HoldPosition | undefined; limit: number },
): Promise<{ rows: OrderTable[]; counts: Record<HoldPart, number> }> {
  const [rows, counts] = await Promise.all([
    repo.listHeldOrdersOfClinic(ctx.db, clinicId, filter),
    repo.countHeldOrdersOfClinic(ctx.db, clinicId),
  ]);
  return { rows, counts };
}
