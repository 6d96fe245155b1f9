import type { SystemChange } from '../changes/run-change.js';
import type { Config } from '../config.js';
import type { Trx } from '../db/database.js';
import type { Actor, OrderStatus } from '../orders/order-status.js';
import { applyTransition, type MoveSteps, type NamedActor } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import { fillsAtShipping } from '../compounding/order-fill-record.js';
import { closeOpenHolds } from '../holds/order-holds.repository.js';
import { addShipment, deliverRemainingShipments } from '../shipments/shipment-changes.js';
import { generateTrackingNumber, trackingFormatOf } from '../shipments/tracking-number.js';

/**
 * The rooms' part in a move (the fill's beyond-use dates count on the pharmacy's calendar, `timeZone`) of the pharmacy or the sandbox (orders/order-transition.ts MoveSteps):
 * - to `cancelled` from `on_hold`: the order's open holds close with it (holds);
 * - to `delivered` by a status change: the packages not yet delivered are delivered first, so that
 *   their `shipment.updated` events count before `order.delivered` (shipments);
 * - to `shipped`: the fill check of the environment (compounding: production refuses an unfilled
 *   item with a formula, development fills it; docs/compounding.md#the-fill), whose items
 *   `order.fulfilled` names, then the order's first shipment (shipments).
 */
export const roomSteps = (timeZone: string): MoveSteps => ({
  async before({ change, trx, now, order, to, deliveredAt }) {
    if (to === 'delivered' && deliveredAt === undefined) await deliverRemainingShipments(change, trx, now, order);
    // A held order cancelled: its open holds close with it (holds).
    if (to === 'cancelled' && order.status === 'on_hold') await closeOpenHolds(trx, order.id, now);
  },
  async after({ change, trx, now, order, to, env, moved }) {
    if (to !== 'shipped') return {};
    const items = await fillsAtShipping(change, trx, now, order, env, timeZone);
    // The order's first shipment (docs/shipping.md#shipments-and-their-journey).
    await addShipment(trx, now, order, order.carrier_id, order.service_id, moved.tracking_number as string);
    return { items };
  },
});

/**
 * One move of the pharmacy's or the sandbox's (a status change, a sandbox step) as part of the
 * caller's change, with the rooms' steps: the core's applyTransition. A move to `shipped` without a
 * tracking number (the sandbox's) gets a test one in the format of the order's carrier.
 */
export async function moveOrder(
  change: SystemChange,
  trx: Trx,
  now: string,
  order: OrderTable,
  to: OrderStatus,
  actor: Actor,
  trackingNumber: string | undefined,
  named: NamedActor,
  reason: string | null,
  config: Pick<Config, 'env' | 'pharmacyTimeZone'>,
): Promise<OrderTable> {
  const tracking =
    to === 'shipped'
      ? (trackingNumber ?? generateTrackingNumber(trackingFormatOf(order.carrier_id, order.carrier_name)))
      : trackingNumber;
  return applyTransition(change, trx, now, order, to, actor, tracking, named, reason, config.env, {
    steps: roomSteps(config.pharmacyTimeZone),
  });
}
