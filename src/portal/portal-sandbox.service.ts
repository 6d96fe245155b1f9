import type { AuditContext } from '../audit/audit-actor.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { allowedNext, type OrderStatus } from '../orders/order-status.js';
import { holdOrder } from '../holds/place-hold.service.js';
import { resumeOrder } from '../holds/resume-hold.service.js';
import { sandboxHoldInput } from '../holds/sandbox-hold.js';
import { holdOf } from '../holds/hold-view.js';
import { advanceOrder } from '../fulfillment/order-moves.service.js';
import type { OrderViewData } from '../fulfillment/order-view.schemas.js';
import { listOrdersOfClinic } from '../orders/order.repository.js';
import type { OrderTable } from '../orders/order.tables.js';
import type { PortalSandboxOrdersQuery, PortalSandboxOrderView } from './portal-sandbox.schemas.js';
import type { SandboxHoldBody } from '../holds/hold.schemas.js';
import { recordShipmentEvent, type ShipmentEventInput } from '../shipments/shipment-commands.service.js';
import type { Static } from '@sinclair/typebox';
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
  return toPage(rows, limit, (items) => items.map(sandboxViewOfRow));
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
  return sandboxViewOf(await advanceOrder(ctx, { clinicId: user.clinicId }, orderId, audit, status));
}

/**
 * Puts an order of the user's clinic on hold as the pharmacy would (the core's holdOrder, actor
 * `sandbox`), with the sandbox API's defaults: the message is the reason's text, and `other` waits on
 * the partner unless `waiting_on` says otherwise. 409 when the order is shipped or final; an order
 * already on hold gets the new hold (as the pharmacy's). 404 for another clinic's order.
 */
export async function holdSandboxOrder(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  orderId: string,
  body: Static<typeof SandboxHoldBody>,
  audit: AuditContext,
): Promise<PortalSandboxOrderView> {
  return sandboxViewOfRow(await holdOrder(ctx, { clinicId: user.clinicId }, orderId, sandboxHoldInput(body), 'sandbox', audit));
}

/** Resumes an order of the user's clinic on hold (the core's resumeOrder, actor `sandbox`); 409 when it is not on hold. */
export async function resumeSandboxOrder(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  orderId: string,
  audit: AuditContext,
): Promise<PortalSandboxOrderView> {
  return sandboxViewOfRow(await resumeOrder(ctx, { clinicId: user.clinicId }, orderId, {}, 'sandbox', audit));
}

/**
 * Records a tracking event of a package of an order of the user's clinic, as the sandbox partner
 * route does (the core's recordShipmentEvent, actor `sandbox`): 404 for another clinic's order or a
 * package of another order.
 */
export async function recordSandboxShipmentEvent(
  ctx: ServiceContext,
  user: PartnerUserIdentity,
  orderId: string,
  shipmentId: string,
  input: ShipmentEventInput,
  audit: AuditContext,
): Promise<PortalSandboxOrderView> {
  return sandboxViewOfRow(
    await recordShipmentEvent(ctx, { clinicId: user.clinicId }, orderId, shipmentId, input, 'sandbox', audit),
  );
}

/** An order's row as the page shows it: it reads no history, the hold itself is on the order's row. */
function sandboxViewOfRow(row: OrderTable): PortalSandboxOrderView {
  return sandboxView({
    id: row.id,
    status: row.status as OrderStatus,
    patientId: row.patient_id,
    createdAt: row.created_at,
    trackingNumber: row.tracking_number,
    hold: holdOf(row),
  });
}

function sandboxViewOf(order: OrderViewData): PortalSandboxOrderView {
  return sandboxView({
    id: order.medication_request_id,
    status: order.status,
    patientId: order.patient_id,
    createdAt: order.created_at,
    trackingNumber: order.tracking_number,
    hold: order.hold,
  });
}

function sandboxView(order: {
  id: string;
  status: OrderStatus;
  patientId: string;
  createdAt: string;
  trackingNumber: string | null;
  hold: PortalSandboxOrderView['hold'];
}): PortalSandboxOrderView {
  return {
    order_id: order.id,
    status: order.status,
    patient_id: order.patientId,
    created_at: order.createdAt,
    tracking_number: order.trackingNumber,
    next_statuses: [...allowedNext(order.status)],
    hold: order.hold,
  };
}
