import type { AuditContext } from '../audit/audit-actor.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { allowedNext, type OrderStatus } from '../orders/order-status.js';
import { advanceOrder } from '../orders/order-transition.service.js';
import { listOrdersOfClinic } from '../orders/order.repository.js';
import type { PortalSandboxOrdersQuery, PortalSandboxOrderView } from './portal-sandbox.schemas.js';
import type { PartnerUserIdentity } from './partner-user-identity.js';

/*
 * The portal's sandbox (development only: the routes exist only there). The list is the clinic's
 * orders with what each may become next; a move is the sandbox API's own (advanceOrder): the same
 * legal path, history rows, events and test tracking numbers.
 */

/** A page of the clinic's orders, newest first (limit default 25). */
export async function listSandboxOrders(
  ctx: ReadContext,
  user: PartnerUserIdentity,
  query: PortalSandboxOrdersQuery,
): Promise<Page<PortalSandboxOrderView>> {
  const limit = query.limit ?? 25;
  const rows = await listOrdersOfClinic(ctx.db, user.clinicId, {
    before: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    limit: limit + 1,
  });
  return toPage(rows, limit, (items) =>
    items.map((row) =>
      sandboxView({
        id: row.id,
        status: row.status as OrderStatus,
        patientId: row.patient_id,
        createdAt: row.created_at,
        trackingNumber: row.tracking_number,
      }),
    ),
  );
}

/**
 * Moves an order of the user's clinic to `status` by exactly the sandbox API's rules (every legal
 * step between, each with its event; 409 when it cannot be reached; 404 for another clinic's order).
 */
export async function advanceSandboxOrder(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  orderId: string,
  status: OrderStatus,
  audit: AuditContext,
): Promise<PortalSandboxOrderView> {
  const order = await advanceOrder(ctx, { clinicId: user.clinicId }, orderId, audit, status);
  return sandboxView({
    id: order.medication_request_id,
    status: order.status,
    patientId: order.patient_id,
    createdAt: order.created_at,
    trackingNumber: order.tracking_number,
  });
}

function sandboxView(order: {
  id: string;
  status: OrderStatus;
  patientId: string;
  createdAt: string;
  trackingNumber: string | null;
}): PortalSandboxOrderView {
  return {
    order_id: order.id,
    status: order.status,
    patient_id: order.patientId,
    created_at: order.createdAt,
    tracking_number: order.trackingNumber,
    next_statuses: [...allowedNext(order.status)],
  };
}
