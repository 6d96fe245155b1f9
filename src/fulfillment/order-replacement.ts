import { closeOpenHolds } from '../holds/order-holds.repository.js';
import type { Change } from '../changes/run-change.js';
import type { Trx } from '../db/database.js';
import { conflict, fieldError } from '../errors.js';
import { isFinal, type OrderStatus } from '../orders/order-status.js';
import { applyTransition, UNNAMED } from '../orders/order-transition.js';
import { findOrder } from '../orders/order.repository.js';
import type { OrderTable } from '../orders/order.tables.js';

/**
 * An order that replaces another of the patient's (issue 39, item 6; docs/compounding.md#replacing-an-order):
 * a titration step, or a switch of drug in the same class. An item names the order it replaces in
 * `replaces_medication_request_id`; the new order is not duplicate therapy of it, and the replaced
 * order, if it has not shipped, is cancelled in the same change.
 */

/** One order a new order's items replace, with the field that named it first. */
export interface Replacement {
  readonly id: string;
  readonly field: string;
}

/** The orders the items replace, each once, with the first field naming it. */
export function replacementsOf(items: readonly { replaces_medication_request_id?: string | undefined }[]): Replacement[] {
  const seen = new Map<string, Replacement>();
  items.forEach((item, i) => {
    const id = item.replaces_medication_request_id;
    if (id !== undefined && !seen.has(id)) {
      seen.set(id, { id, field: `medication_requests[${i}].replaces_medication_request_id` });
    }
  });
  return [...seen.values()];
}

/**
 * Inside the new order's change, after the patient's intake lock: each replaced order must be one of
 * this patient's in the clinic (else 400 naming the field) and not final (delivered or cancelled: 409
 * naming the field). One not yet shipped is cancelled by the partner, as `POST …/cancel` does
 * (`order.cancelled`, audited `cancel`), its history line naming its replacement; one shipped (or
 * held after shipping) has reached the patient and stays as it is.
 */
export async function replaceOrders(
  change: Change,
  trx: Trx,
  replaced: readonly Replacement[],
  replacement: Pick<OrderTable, 'id' | 'clinic_id' | 'patient_id'>,
): Promise<void> {
  for (const { id, field } of replaced) {
    const order = await findOrder(trx, replacement.clinic_id, id);
    if (order === undefined || order.patient_id !== replacement.patient_id) {
      throw fieldError(field, 'is not an order of this patient in your clinic');
    }
    const status = order.status as OrderStatus;
    if (isFinal(status)) {
      throw conflict(`The medication request ${id} is ${status}: there is nothing to replace`, {
        [field]: `is ${status}, a final state: leave it out`,
      });
    }
    if (status === 'shipped' || (status === 'on_hold' && order.held_from === 'shipped')) continue;
    // A cancelled order keeps no open hold (as a cancellation by its own route: order-move.ts).
    if (status === 'on_hold') await closeOpenHolds(trx, order.id, change.at);
    await applyTransition(
      change,
      trx,
      change.at,
      order,
      'cancelled',
      'partner',
      undefined,
      UNNAMED,
      `Replaced by order ${replacement.id} (titration or switch).`,
    );
    change.audit('cancel', { type: 'medication_request', id, clinicId: order.clinic_id });
  }
}
