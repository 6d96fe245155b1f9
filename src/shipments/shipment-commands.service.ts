import type { ServiceContext } from '../context.js';
import { runChange } from '../changes/run-change.js';
import { notFoundIn } from '../audit/denied-access.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { conflict, fieldError, notFound } from '../errors.js';
import { isCalendarDate } from '../shared/calendar-date.js';
import { storedInstant } from '../shared/instants.js';
import { blankToNull } from '../shared/text.js';
import type { Actor } from '../orders/order-status.js';
import { loadForUpdate, namedActorOf, type Scope } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import { trackingFormatOf, trackingNumberProblem } from './tracking-number.js';
import { addShipment, shipmentUpdated } from './shipment-changes.js';
import { recordJourney, type TrackingEventInput, type Who } from './shipment-journey.js';
import * as shipments from './shipment.repository.js';
import type { ShipmentStatus } from '../shipping/shipment-status.js';

/*
 * The pharmacy's shipment commands (the operator's routes) and the sandbox's tracking events
 * (docs/shipping.md#shipments-and-their-journey): another package for a shipped order, and a
 * tracking event recorded by hand. Each answers with the order as it now is.
 */

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
): Promise<OrderTable> {
  return runChange(ctx, audit, async (change) => {
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
    const carrierName = carrierId === current.carrier_id ? current.carrier_name : await shipments.findCarrierName(trx, carrierId);
    if (carrierName === undefined) throw fieldError('carrier_id', 'is not a carrier (GET /api/external/carriers lists them)');
    if (
      !(carrierId === current.carrier_id && serviceId === current.service_id) &&
      !(await shipments.serviceExists(trx, carrierId, serviceId))
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
): Promise<OrderTable> {
  const occurredAt = storedInstant(input.occurred_at, 'occurred_at');
  if (Date.parse(occurredAt) > ctx.clock().getTime() + OCCURRED_AT_SKEW_MS) {
    throw fieldError('occurred_at', 'must not be in the future');
  }
  const estimated = input.estimated_delivery_date;
  if (estimated !== undefined && !isCalendarDate(estimated)) {
    throw fieldError('estimated_delivery_date', 'must be a date (YYYY-MM-DD)');
  }
  return runChange(ctx, audit, async (change) => {
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
}
