import type { ServiceContext } from '../context.js';
import type { SystemChange } from '../changes/run-change.js';
import type { Trx } from '../db/database.js';
import { holdReasonOf } from '../holds/hold-reasons.js';
import { holdInChange } from '../holds/place-hold.service.js';
import { resume } from '../holds/resume-hold.service.js';
import { SHIPPED_HOLD_REASON, type Actor } from '../orders/order-status.js';
import { applyTransition, type NamedActor } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import { eventRow, shipmentUpdated } from './shipment-changes.js';
import * as shipments from './shipment.repository.js';
import { EXCEPTION_STATUSES, type ShipmentStatus } from '../shipping/shipment-status.js';
import type { ShipmentTable } from './shipment.tables.js';
import { oneMsLater } from '../shared/instants.js';

/*
 * A shipment's journey (issue 31; docs/shipping.md#shipments-and-their-journey): tracking events
 * recorded on a shipment in the caller's change, and the order following its shipments. Taken by
 * the carrier's tracking (carrier-tracking.service.ts) and the pharmacy's and the sandbox's
 * commands (shipment-commands.service.ts).
 */

/** One tracking event, sanitized by the caller (no control characters, capped lengths). */
export interface TrackingEventInput {
  status: ShipmentStatus;
  /** ISO 8601. */
  occurred_at: string;
  location: string | null;
  description: string | null;
}

/** Who recorded tracking events: the history's actor of the moves they cause. */
export interface Who {
  actor: Actor;
  named: NamedActor;
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
  const at = oneMsLater(change.at);
  if (status === 'delivered') {
    const all = await shipments.listShipmentsOfOrder(trx, order.id);
    if (!all.every((s) => s.status === 'delivered')) return order;
    const deliveredAt = all.map((s) => s.delivered_at ?? s.status_at ?? change.at).reduce((a, b) => (a > b ? a : b));
    let current = order;
    if (current.status === 'on_hold' && current.held_from === 'shipped') {
      current = await resume(change, trx, current, who.actor, who.named, null, at);
    }
    if (current.status !== 'shipped') return current;
    // The shipments made the delivery: no room step (orders/order-transition.ts NO_STEPS).
    return applyTransition(
      change,
      trx,
      oneMsLater(at),
      current,
      'delivered',
      who.actor,
      undefined,
      who.named,
      null,
      ctx.config.env,
      {
        deliveredAt,
      },
    );
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
