import type { ServiceContext } from '../context.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import type { Trx } from '../db/database.js';
import { holdReasonOf } from '../holds/hold-reasons.js';
import { holdInChange, resume } from '../holds/order-hold.service.js';
import { SHIPPED_HOLD_REASON, type Actor } from '../orders/order-status.js';
import { applyTransition, loadForUpdate, namedActorOf, type NamedActor, type Scope } from '../orders/order-transition.service.js';
import { notFoundIn } from '../audit/denied-access.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { conflict, fieldError, notFound } from '../errors.js';
import { storedInstant } from '../shared/instants.js';
import { loadOrderView } from '../fulfillment/order-view.js';
import type { OrderViewData } from '../orders/order.schemas.js';
import { trackingFormatOf, trackingNumberProblem } from './tracking-number.js';
import type { OrderTable } from '../orders/order.tables.js';
import { addShipment, eventRow, shipmentUpdated } from './shipment-changes.js';
import * as shipments from './shipment.repository.js';
import { EXCEPTION_STATUSES, type ShipmentStatus } from '../shipping/shipment-status.js';
import type { ShipmentTable } from './shipment.tables.js';

/*
 * A shipment's journey (issue 31; docs/shipping.md#shipments-and-their-journey): tracking events,
 * from the carrier (the EasyPost receiver: applyCarrierTracking) or the pharmacy (the operator's
 * and the sandbox's routes: recordJourney), and the order following its shipments.
 */

/** One tracking event, sanitized by the caller (no control characters, capped lengths). */
export interface TrackingEventInput {
  status: ShipmentStatus;
  /** ISO 8601. */
  occurred_at: string;
  location: string | null;
  description: string | null;
}

/** What a carrier says of one tracking number: its events (any order, replays welcome) and its estimate. */
export interface CarrierTrackingUpdate {
  tracking_number: string;
  events: TrackingEventInput[];
  /** YYYY-MM-DD; null: no estimate given (a known estimate is kept). */
  estimated_delivery_date: string | null;
}

/**
 * `applied`: a new event was recorded or the estimate changed; `unchanged`: every event was known
 * already, or the shipment is delivered (its journey is over); `unknown_tracking_number`: no
 * shipment has the number.
 */
export type CarrierTrackingOutcome = 'applied' | 'unchanged' | 'unknown_tracking_number';

/** Who a carrier's update is, in the order's history: the pharmacy's side, named as the carrier feed. */
const CARRIER: Who = { actor: 'operator', named: { actorId: null, actorName: 'Carrier tracking' } };

/** Who recorded tracking events: the history's actor of the moves they cause. */
export interface Who {
  actor: Actor;
  named: NamedActor;
}

/**
 * The EasyPost receiver's entry point: applies every event of `update` not yet recorded to the
 * shipment with its tracking number, as one change with no actor (a system change: not audited).
 */
export async function applyCarrierTracking(ctx: ServiceContext, update: CarrierTrackingUpdate): Promise<CarrierTrackingOutcome> {
  return runChange(ctx, null, async (change) => {
    const trx = await change.transaction();
    const found = await shipments.findShipmentByTracking(trx, update.tracking_number.trim());
    if (found === undefined) return 'unknown_tracking_number';
    const order = await shipments.lockOrder(trx, found.medication_request_id);
    if (order === undefined) return 'unknown_tracking_number';
    const result = await recordJourney(change, trx, order, found.id, update.events, update.estimated_delivery_date, CARRIER, ctx);
    return result.applied ? 'applied' : 'unchanged';
  });
}

export interface JourneyResult {
  /** A new event was recorded or the estimate changed. */
  applied: boolean;
  /** The shipment's status changed (one `shipment.updated` was sent). */
  statusChanged: boolean;
  order: OrderTable;
  shipment: ShipmentTable;
}

/**
 * Records `events` on one shipment of `order` (whose row the caller has locked: shipment.repository
 * lockOrder) as part of the caller's change:
 * - a delivered shipment's journey is over: nothing is recorded;
 * - an event already recorded (same status and time) is a no-op;
 * - the status becomes that of the latest event by `occurred_at`; an event older than the latest
 *   known is recorded in the journey but does not move the status back;
 * - a status change sends `shipment.updated` (once, whatever the number of events);
 * - `estimated_delivery_date` (a date; undefined or null keeps the known one) is kept;
 * - the order follows (followShipments).
 */
export async function recordJourney(
  change: SystemChange,
  trx: Trx,
  order: OrderTable,
  shipmentId: string,
  events: readonly TrackingEventInput[],
  estimatedDeliveryDate: string | null | undefined,
  who: Who,
  ctx: Pick<ServiceContext, 'config'>,
): Promise<JourneyResult> {
  const now = change.at;
  const shipment = await shipments.findShipmentOfOrder(trx, order.id, shipmentId);
  if (shipment === undefined) throw new Error(`Shipment ${shipmentId} is not of order ${order.id}`);
  if (shipment.status === 'delivered') return { applied: false, statusChanged: false, order, shipment };

  const rows = events
    .map((e) => eventRow(shipment.id, e.status, new Date(e.occurred_at).toISOString(), now, e.location, e.description))
    .sort((a, b) => (a.occurred_at < b.occurred_at ? -1 : a.occurred_at > b.occurred_at ? 1 : 0));
  const inserted = await shipments.insertNewEvents(trx, dedupe(rows));

  let status = shipment.status;
  let statusAt = shipment.status_at;
  let deliveredAt: string | null = null;
  for (const row of rows) {
    if (!inserted.has(row.id) || status === 'delivered') continue;
    if (statusAt === null || row.occurred_at >= statusAt) {
      status = row.status;
      statusAt = row.occurred_at;
      if (status === 'delivered') deliveredAt = row.occurred_at;
    }
  }
  const etaChanged =
    estimatedDeliveryDate !== undefined &&
    estimatedDeliveryDate !== null &&
    estimatedDeliveryDate !== shipment.estimated_delivery_date;
  const statusChanged = status !== shipment.status;
  const applied = inserted.size > 0 || etaChanged;
  if (!applied) return { applied, statusChanged, order, shipment };

  const set: shipments.ShipmentChanges = { status, status_at: statusAt, updated_at: now };
  if (etaChanged) set.estimated_delivery_date = estimatedDeliveryDate;
  if (deliveredAt !== null) set.delivered_at = deliveredAt;
  await shipments.updateShipment(trx, shipment.id, set);
  const updated: ShipmentTable = { ...shipment, ...set };
  if (!statusChanged) return { applied, statusChanged, order, shipment: updated };

  await shipmentUpdated(change, trx, now, order, updated);
  const followed = await followShipments(change, trx, order, updated, who, ctx);
  return { applied, statusChanged, order: followed, shipment: updated };
}

/** Two events of one batch with the same status and time are one (the second would collide). */
function dedupe<T extends { status: string; occurred_at: string }>(rows: T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = `${r.status} ${r.occurred_at}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The order follows its shipments, never backwards:
 * - every shipment delivered: a shipped order becomes `delivered` at the last delivery's time
 *   (`order.delivered`); an order on a `delivery_exception` hold is resumed to shipped first;
 * - `exception` or `returned_to_sender`: a shipped order goes on hold, `delivery_exception`,
 *   waiting on the partner (`order.on_hold`). An order already on hold stays as it is.
 */
async function followShipments(
  change: SystemChange,
  trx: Trx,
  order: OrderTable,
  shipment: ShipmentTable,
  who: Who,
  ctx: Pick<ServiceContext, 'config'>,
): Promise<OrderTable> {
  const status = shipment.status as ShipmentStatus;
  // One millisecond after the shipment's event, so that the order's events sort after it.
  const at = later(change.at);
  if (status === 'delivered') {
    const all = await shipments.listShipmentsOfOrder(trx, order.id);
    if (!all.every((s) => s.status === 'delivered')) return order;
    const deliveredAt = all.map((s) => s.delivered_at ?? s.status_at ?? change.at).reduce((a, b) => (a > b ? a : b));
    let current = order;
    if (current.status === 'on_hold' && current.held_from === 'shipped') {
      current = await resume(change, trx, current, who.actor, who.named, null, at);
    }
    if (current.status !== 'shipped') return current;
    return applyTransition(change, trx, later(at), current, 'delivered', who.actor, undefined, who.named, null, ctx.config.env, {
      deliveredAt,
    });
  }
  if (EXCEPTION_STATUSES.has(status) && order.status === 'shipped') {
    const reason = holdReasonOf(SHIPPED_HOLD_REASON);
    return holdInChange(
      change,
      trx,
      order,
      { reason_code: SHIPPED_HOLD_REASON, message: reason?.reason ?? SHIPPED_HOLD_REASON },
      who.actor,
      who.named,
      at,
    );
  }
  return order;
}

const later = (at: string): string => new Date(Date.parse(at) + 1).toISOString();

/** The pharmacy's new package of a shipped order (`POST /api/admin/medication-requests/{id}/shipments`). */
export interface AddShipmentInput {
  tracking_number: string;
  carrier_id?: string | undefined;
  service_id?: string | undefined;
}

/** A tracking event recorded by the pharmacy or the sandbox (`…/shipments/{shipmentId}/events`). */
export interface ShipmentEventInput {
  status: ShipmentStatus;
  occurred_at: string;
  location?: string | undefined;
  description?: string | undefined;
  estimated_delivery_date?: string | undefined;
}

/** How far ahead of the server's clock an event's `occurred_at` may be (the carrier's clock, the operator's). */
export const OCCURRED_AT_SKEW_MS = 5 * 60_000;

/**
 * Adds a package to a shipped order (or one on a `delivery_exception` hold; else 409): the order's
 * carrier and service unless given (a carrier and service of the catalog: 400 naming the field),
 * the tracking number in the carrier's format (400 naming `tracking_number`). The new shipment is
 * `in_transit`, with its first event, and sends `shipment.updated` (the first shipment is announced
 * by `order.fulfilled`). Audited as an `update` of the order.
 */
export async function addOrderShipment(
  ctx: ServiceContext,
  orderId: string,
  input: AddShipmentInput,
  audit: AuditContext,
): Promise<OrderViewData> {
  const order = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    await loadForUpdate(trx, 'all', orderId);
    const current = await shipments.lockOrder(trx, orderId);
    if (current === undefined) throw notFoundIn({ type: 'medication_request', id: orderId }, 'Medication request not found');
    if (!(current.status === 'shipped' || (current.status === 'on_hold' && current.held_from === 'shipped'))) {
      throw conflict(`The medication request is ${current.status}: only a shipped order takes another shipment`, {
        status: `is ${current.status}; shipments are added to shipped orders`,
      });
    }
    const carrierId = input.carrier_id ?? current.carrier_id;
    const serviceId = input.service_id ?? (input.carrier_id === undefined ? current.service_id : undefined);
    if (serviceId === undefined) throw fieldError('service_id', 'is required when carrier_id is given');
    const carrierName = carrierId === current.carrier_id ? current.carrier_name : await carrierNameOf(trx, carrierId);
    if (carrierName === undefined) throw fieldError('carrier_id', 'is not a carrier (GET /api/external/carriers lists them)');
    if (
      !(carrierId === current.carrier_id && serviceId === current.service_id) &&
      !(await serviceExists(trx, carrierId, serviceId))
    ) {
      throw fieldError('service_id', `is not a service of carrier ${carrierId}`);
    }
    const tracking = input.tracking_number.trim();
    const problem = trackingNumberProblem(trackingFormatOf(carrierId, carrierName), tracking);
    if (problem !== null) throw fieldError('tracking_number', problem);
    const shipment = await addShipment(trx, change.at, current, carrierId, serviceId, tracking);
    await shipmentUpdated(change, trx, change.at, current, shipment);
    change.audit('update', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return current;
  });
  return loadOrderView(ctx.db, order);
}

/**
 * Records one tracking event on a shipment of an order (the operator's route: scope `all`; the
 * sandbox's: the partner's clinic). Another clinic's order, or a shipment of another order, is 404.
 * `occurred_at` may not be more than OCCURRED_AT_SKEW_MS ahead of the clock (400). A delivered
 * shipment's journey is over: the event is ignored (the order is answered as it is). Audited as an
 * `update` of the order when it changed something.
 */
export async function recordShipmentEvent(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  shipmentId: string,
  input: ShipmentEventInput,
  actor: Actor,
  audit: AuditContext,
): Promise<OrderViewData> {
  const occurredAt = storedInstant(input.occurred_at, 'occurred_at');
  if (Date.parse(occurredAt) > ctx.clock().getTime() + OCCURRED_AT_SKEW_MS) {
    throw fieldError('occurred_at', 'must not be in the future');
  }
  const estimated = input.estimated_delivery_date;
  if (estimated !== undefined && Number.isNaN(Date.parse(`${estimated}T00:00:00Z`))) {
    throw fieldError('estimated_delivery_date', 'must be a date (YYYY-MM-DD)');
  }
  const order = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    await loadForUpdate(trx, scope, orderId);
    const current = await shipments.lockOrder(trx, orderId);
    if (current === undefined) throw notFoundIn({ type: 'medication_request', id: orderId }, 'Medication request not found');
    const shipment = await shipments.findShipmentOfOrder(trx, orderId, shipmentId);
    if (shipment === undefined) throw notFound('Shipment not found');
    const who: Who = { actor, named: actor === 'operator' ? namedActorOf(audit) : { actorId: null, actorName: null } };
    const event: TrackingEventInput = {
      status: input.status,
      occurred_at: occurredAt,
      location: blankToNull(input.location),
      description: blankToNull(input.description),
    };
    const result = await recordJourney(change, trx, current, shipment.id, [event], estimated, who, ctx);
    if (result.applied) change.audit('update', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return result.order;
  });
  return loadOrderView(ctx.db, order);
}

async function carrierNameOf(trx: Trx, carrierId: string): Promise<string | undefined> {
  return (await trx.selectFrom('carriers').select('name').where('id', '=', carrierId).executeTakeFirst())?.name;
}

async function serviceExists(trx: Trx, carrierId: string, serviceId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('shipping_services')
    .select('id')
    .where('carrier_id', '=', carrierId)
    .where('id', '=', serviceId)
    .executeTakeFirst();
  return row !== undefined;
}

const blankToNull = (text: string | undefined): string | null => {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? null : trimmed;
};
