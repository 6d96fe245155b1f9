import { newId } from '../shared/ids.js';
import type * as repo from '../orders/order.repository.js';
import type { OrderHoldTable } from './hold.tables.js';
import { isClinical } from './hold-reasons.js';

/*
 * An order's open holds (issue 39, item 1; docs/orders.md#holds), without I/O: which one a partner
 * reads first, and what the order's own hold columns mirror of them.
 */

/** The hold a partner reads as `hold`: the oldest open one waiting on the partner, else the oldest open one. */
export function headlineOf<T extends Pick<OrderHoldTable, 'waiting_on'>>(open: readonly T[]): T | undefined {
  return open.find((h) => h.waiting_on === 'partner') ?? open[0];
}

/**
 * The order's hold columns for its open holds (at least one): the headline's reason, message, whom
 * it waits on and its answer. The time the order went on hold and the status it resumes to are the
 * order's, set when its first hold opened.
 */
export function mirrorOf(open: readonly OrderHoldTable[]): repo.StatusChanges {
  const headline = headlineOf(open);
  if (headline === undefined) return {};
  return {
    hold_reason_code: headline.reason_code,
    hold_message: headline.message,
    hold_waiting_on: headline.waiting_on,
    hold_answered_at: headline.answered_at,
  };
}

/** The clinical holds among `holds`, by reason (a pharmacist's override resolves them). */
export const clinicalOf = <T extends Pick<OrderHoldTable, 'reason_code'>>(holds: readonly T[]): T[] =>
  holds.filter((h) => isClinical(h.reason_code));

/** A hold as it opens: who opened it, why and whom it waits on; answered and resolved later. */
export function openedHold(
  opened: Pick<
    OrderHoldTable,
    | 'medication_request_id'
    | 'reason_code'
    | 'waiting_on'
    | 'message'
    | 'opened_at'
    | 'opened_by'
    | 'opened_by_id'
    | 'opened_by_name'
  >,
): OrderHoldTable {
  return {
    id: newId(),
    ...opened,
    answered_at: null,
    resolved_at: null,
    resolution: null,
    resolved_by: null,
    resolved_by_id: null,
    resolved_by_name: null,
    override_reason: null,
  };
}
