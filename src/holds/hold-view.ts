import type { Actor } from '../orders/order-status.js';
import { inLifecycleOrder } from '../orders/order-core-view.js';
import type { OrderTable, StatusHistoryTable } from '../orders/order.tables.js';
import { holdReasonOf, type WaitingOn } from './hold-reasons.js';
import type { HoldViewData } from './hold.schemas.js';

/*
 * The holds' part of the order as partners read it (assembled with the others in
 * fulfillment/order-view.ts): the hold is on the order's row, its conversation in the history.
 */

/** The order's current hold as a partner reads it (null when it is not on hold): it is on the order's row. */
export function holdOf(order: OrderTable): HoldViewData['hold'] {
  const code = order.hold_reason_code ?? null;
  if (order.status !== 'on_hold' || code === null) return null;
  return {
    reason_code: code,
    reason: holdReasonOf(code)?.reason ?? code,
    message: order.hold_message ?? '',
    waiting_on: (order.hold_waiting_on ?? 'pharmacy') as WaitingOn,
    since: order.hold_since ?? order.updated_at,
  };
}

/** The hold, its conversation and the order's own address, as a partner reads them. */
export function holdFields(order: OrderTable, history: readonly StatusHistoryTable[]): HoldViewData {
  return {
    hold: holdOf(order),
    hold_history: holdSteps(history).map(holdEntry),
    shipping_address:
      order.ship_to_address_line1 && order.ship_to_city && order.ship_to_state && order.ship_to_postal_code
        ? {
            addressLine1: order.ship_to_address_line1,
            addressLine2: order.ship_to_address_line2 ?? null,
            city: order.ship_to_city,
            state: order.ship_to_state,
            postalCode: order.ship_to_postal_code,
          }
        : null,
  };
}

/** One step of the holds' conversation as a partner reads it. */
export const holdEntry = (h: StatusHistoryTable): HoldViewData['hold_history'][number] => ({
  kind: h.kind as 'hold' | 'answer' | 'resume',
  reason_code: h.reason_code ?? null,
  waiting_on: (h.waiting_on ?? null) as WaitingOn | null,
  message: h.message ?? null,
  actor: h.actor as Actor,
  at: h.at,
});

/** The rows of the holds' conversation: holds, answers, resumes. */
export const holdSteps = (history: readonly StatusHistoryTable[]): StatusHistoryTable[] =>
  inLifecycleOrder(history).filter((h) => h.kind !== null && h.kind !== undefined);
