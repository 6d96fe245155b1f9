import type { MedicationDispense } from '@medplum/fhirtypes';
import { ORDER_STATUSES, type OrderStatus } from '../orders/order-status.js';

/*
 * The status of a medication item's MedicationDispense, from its order (docs/fhir.md#status-mapping,
 * issue 32). Pure: the resource's status and the search's `status=` criterion are both derived from
 * `medicationDispenseStatus`, so that what a search matches is what a read shows.
 */

export type DispenseStatus = MedicationDispense['status'];

/** FHIR R4's medicationdispense-status value set (a required binding): the codes `status=` admits. */
export const DISPENSE_STATUS_CODES: readonly DispenseStatus[] = [
  'preparation',
  'in-progress',
  'cancelled',
  'on-hold',
  'completed',
  'entered-in-error',
  'stopped',
  'declined',
  'unknown',
];

export const DISPENSE_STATUS_SYSTEM = 'http://hl7.org/fhir/CodeSystem/medicationdispense-status';

/** What the status depends on: the order's status, whether the order ever reached `processing`, and whether the item is filled. */
export interface DispenseFacts {
  readonly orderStatus: OrderStatus;
  /** The order's history has a move to `processing` (a hold or cancellation from `pending` never did). */
  readonly reachedProcessing: boolean;
  /** The item has a fill row (medication_item_fills). */
  readonly filled: boolean;
}

/**
 * The MedicationDispense status of an item, or null when the item has no dispense: its order is
 * pending, or was held or cancelled before the pharmacy began (from `pending`).
 *
 * | order | dispense |
 * |---|---|
 * | pending | none |
 * | processing | `preparation` before the fill, `in-progress` once filled |
 * | on_hold | `on-hold` (none if held from pending) |
 * | shipped, delivered | `completed` |
 * | cancelled | `cancelled` (none if cancelled before processing) |
 */
export function medicationDispenseStatus(facts: DispenseFacts): DispenseStatus | null {
  switch (facts.orderStatus) {
    case 'pending':
      return null;
    case 'processing':
      return facts.filled ? 'in-progress' : 'preparation';
    case 'on_hold':
      return facts.reachedProcessing ? 'on-hold' : null;
    case 'shipped':
    case 'delivered':
      return 'completed';
    case 'cancelled':
      return facts.reachedProcessing ? 'cancelled' : null;
  }
}

/**
 * Which items match: an order status, narrowed (when set) by whether the order reached
 * `processing` and whether the item is filled. A list of these is a disjunction.
 */
export interface DispenseCondition {
  readonly orderStatus: OrderStatus;
  readonly reachedProcessing?: boolean;
  readonly filled?: boolean;
}

const BOTH = [false, true] as const;

/**
 * The conditions on orders and fills under which an item's dispense has one of `wanted` (every
 * status that has a dispense when `wanted` is undefined): `medicationDispenseStatus` read backwards,
 * by trying each combination of facts, so that the two cannot disagree. `completed` gives shipped
 * and delivered; `in-progress` processing and filled; `preparation` processing and not filled; a
 * code we never give (`stopped`) gives nothing.
 */
export function dispenseConditions(wanted?: ReadonlySet<DispenseStatus>): DispenseCondition[] {
  const matches = (status: DispenseStatus | null) => status !== null && (wanted === undefined || wanted.has(status));
  return ORDER_STATUSES.flatMap((orderStatus): DispenseCondition[] => {
    const combos = BOTH.flatMap((reachedProcessing) =>
      BOTH.filter((filled) => matches(medicationDispenseStatus({ orderStatus, reachedProcessing, filled }))).map((filled) => ({
        reachedProcessing,
        filled,
      })),
    );
    if (combos.length === 0) return [];
    if (combos.length === 4) return [{ orderStatus }];
    const reached = new Set(combos.map((c) => c.reachedProcessing));
    const filled = new Set(combos.map((c) => c.filled));
    if (combos.length === 2 && reached.size === 1) return [{ orderStatus, reachedProcessing: combos[0]?.reachedProcessing }];
    if (combos.length === 2 && filled.size === 1) return [{ orderStatus, filled: combos[0]?.filled }];
    return combos.map((c) => ({ orderStatus, ...c }));
  });
}
