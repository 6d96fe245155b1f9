import type { Actor } from '../orders/order-status.js';
import { inLifecycleOrder } from '../orders/order-core-view.js';
import type { OrderTable, StatusHistoryTable } from '../orders/order.tables.js';
import { holdReasonOf, isClinical, type WaitingOn } from './hold-reasons.js';
import type { HoldViewData } from './hold.schemas.js';
import type { OrderHoldTable } from './hold.tables.js';
import { headlineOf } from './hold-stack.js';

/*
 * The holds' part of the order as partners read it (assembled with the others in
 * fulfillment/order-view.ts): its open holds (order_holds), their conversation in the history.
 */

/** One open hold as a partner reads it. */
export function openHoldView(h: OrderHoldTable): HoldViewData['holds'][number] {
  return {
    hold_id: h.id,
    reason_code: h.reason_code,
    reason: holdReasonOf(h.reason_code)?.reason ?? h.reason_code,
    message: h.message,
    waiting_on: h.waiting_on as WaitingOn,
    clinical: isClinical(h.reason_code),
    since: h.opened_at,
    answered_at: h.answered_at,
  };
}

/**
 * The order's hold as a partner reads it (null when it is not on hold): the open hold that waits on
 * the partner, else the oldest. Without its open holds (a read of the row alone: the portal's
 * sandbox page, an answer's reply) it reads the order's columns, which mirror that hold.
 */
export function holdOf(order: OrderTable, open: readonly OrderHoldTable[] = []): HoldViewData['hold'] {
  if (order.status !== 'on_hold') return null;
  const headline = headlineOf(open);
  if (headline !== undefined) {
    const { reason_code, reason, message, waiting_on, since } = openHoldView(headline);
    return { reason_code, reason, message, waiting_on, since };
  }
  const code = order.hold_reason_code ?? null;
  if (code === null) return null;
  return {
    reason_code: code,
    reason: holdReasonOf(code)?.reason ?? code,
    message: order.hold_message ?? '',
    waiting_on: (order.hold_waiting_on ?? 'pharmacy') as WaitingOn,
    since: order.hold_since ?? order.updated_at,
  };
}

/** The holds, their conversation and the order's own address, as a partner reads them. */
export function holdFields(
  order: OrderTable,
  history: readonly StatusHistoryTable[],
  open: readonly OrderHoldTable[],
): HoldViewData {
  const stillOpen = order.status === 'on_hold' ? open : [];
  return {
    hold: holdOf(order, stillOpen),
    holds: stillOpen.map(openHoldView),
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
  kind: h.kind as HoldViewData['hold_history'][number]['kind'],
  reason_code: h.reason_code ?? null,
  waiting_on: (h.waiting_on ?? null) as WaitingOn | null,
  message: h.message ?? null,
  actor: h.actor as Actor,
  at: h.at,
  hold_id: h.hold_id ?? null,
  resolution: (h.resolution ?? null) as HoldViewData['hold_history'][number]['resolution'],
});

/** The rows of the holds' conversation: holds, answers, resolutions, resumes. */
export const holdSteps = (history: readonly StatusHistoryTable[]): StatusHistoryTable[] =>
  inLifecycleOrder(history).filter((h) => h.kind !== null && h.kind !== undefined);
