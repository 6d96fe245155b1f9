import { notFoundIn } from '../audit/denied-access.js';
import { actorName, type AuditContext } from '../audit/audit-actor.js';
import type { SystemChange } from '../changes/run-change.js';
import type { Trx } from '../db/database.js';
import { conflict } from '../errors.js';
import type { OutboxEventType } from '../events/event-types.js';
import type { Environment } from '../config.js';
import {
  allowedNext,
  canTransition,
  heldAfterShipping,
  illegalTransitionMessage,
  type Actor,
  type OrderStatus,
} from './order-status.js';
import type { OrderTable } from './order.tables.js';
import * as repo from './order.repository.js';
import { closeRefillRequest } from './refill-request-of-order.repository.js';
import { newId } from '../shared/ids.js';

/** Whose orders a caller may touch: a partner's clinic, or every clinic (the operator, the sandbox timer). */
export type Scope = { clinicId: string } | 'all';

/** The event each move sends; a move to `processing` sends none (the portal's sandbox page says so). */
export const EVENT_OF: Partial<Record<OrderStatus, OutboxEventType>> = {
  shipped: 'order.fulfilled',
  delivered: 'order.delivered',
  cancelled: 'order.cancelled',
};

/** Who, for the pharmacy, made a status change: kept in the history beside `actor` (never shown to partners). */
export interface NamedActor {
  readonly actorId: string | null;
  readonly actorName: string | null;
}

/** A change that names nobody in the history: a partner's, the sandbox's. */
export const UNNAMED: NamedActor = { actorId: null, actorName: null };

/**
 * The history's names for a change made by `audit`'s actor: a staff member's id and name, the
 * operator token, the command line's operator. A partner's change names nobody (as before).
 */
export function namedActorOf(audit: AuditContext): NamedActor {
  const { actor } = audit;
  return { actorId: actor.type === 'staff' ? actor.staffId : null, actorName: actorName(actor) };
}

/** One move of one order, as the steps of the rooms see it. */
export interface Move {
  change: SystemChange;
  trx: Trx;
  now: string;
  /** The order as it was read, before the move. */
  order: OrderTable;
  to: OrderStatus;
  env: Environment;
  /** A delivery's time when the shipments made it (their last delivery); undefined for a status change. */
  deliveredAt: string | undefined;
}

/**
 * What the rooms do when an order moves, inside the move's change (issue 38). The core moves the
 * order's row, writes its history and its event; the steps are given by the layer above the rooms
 * (fulfillment/order-move.ts: the packages delivered before `order.delivered`, the fill check and
 * the first shipment of a move to `shipped`), so that the core imports none of them.
 */
export interface MoveSteps {
  /** Before the order's row moves (what it writes is counted before the order's event). */
  before(move: Move): Promise<void>;
  /**
   * After the row moved (the change holds it) and before the order's event: returns what the event
   * says besides the core's fields (`items` of `order.fulfilled`).
   */
  after(move: Move & { moved: OrderTable }): Promise<Record<string, unknown>>;
}

/** A move the rooms take no part in: a cancellation, a delivery the shipments made themselves. */
export const NO_STEPS: MoveSteps = {
  before: () => Promise.resolve(),
  after: () => Promise.resolve({}),
};

/**
 * Applies one transition as part of the caller's change: refuses an illegal one (409 naming both
 * states), moves the order only if it is still in the state it was read in (so that of many
 * simultaneous identical transitions exactly one succeeds), records the history row and the
 * partner-facing event, and closes the refill request an order fulfils or cancels. `reason` (a
 * cancellation's) goes in the history row's message: the pharmacy's, never in the event. A move to
 * `shipped` takes its tracking number and the rooms' `steps` (fulfillment/order-move.ts moveOrder:
 * the fill check of `env`, whose default is production's, the strict one). Returns the order as it
 * now is.
 */
export async function applyTransition(
  change: SystemChange,
  trx: Trx,
  now: string,
  order: OrderTable,
  to: OrderStatus,
  actor: Actor,
  trackingNumber?: string,
  named: NamedActor = UNNAMED,
  reason: string | null = null,
  env: Environment = 'production',
  { deliveredAt, steps = NO_STEPS }: { deliveredAt?: string; steps?: MoveSteps } = {},
): Promise<OrderTable> {
  const from = order.status as OrderStatus;
  if (!canTransition(from, to)) throw illegalTransition(from, to);
  if (heldAfterShipping(order) || (from === 'on_hold' && order.held_from === 'shipped')) throw shippedHoldNotCancellable();
  // A programming error, not a request's: only the layer above the rooms ships an order (with its steps).
  if (to === 'shipped' && (trackingNumber === undefined || steps === NO_STEPS)) {
    throw new Error(`A move of order ${order.id} to shipped needs its tracking number and the rooms' steps (moveOrder)`);
  }

  const changes: repo.StatusChanges = {};
  if (to === 'shipped') {
    changes.tracking_number = trackingNumber;
    changes.shipped_at = now;
  }
  if (to === 'delivered') changes.delivered_at = deliveredAt ?? now;
  if (to === 'cancelled') changes.cancelled_at = now;
  if (from === 'on_hold') Object.assign(changes, repo.NO_HOLD);

  const type = EVENT_OF[to];
  const move: Move = { change, trx, now, order, to, env, deliveredAt };
  await steps.before(move);
  // The move and, when it sends an event, the order's event count: one statement (docs/webhooks.md#ordering).
  const sequence = await repo.updateStatusIf(trx, order.id, from, to, now, changes, type !== undefined);
  if (sequence === null) {
    // Another change committed between our read and our update: refuse against the state it left.
    const current = await repo.findOrderUnscoped(trx, order.id);
    throw illegalTransition((current?.status ?? from) as OrderStatus, to);
  }
  const updated: OrderTable = { ...order, ...changes, status: to, updated_at: now, event_sequence: sequence };
  // After the UPDATE, which holds the order's row: what the rooms read meanwhile is what committed.
  const said = await steps.after({ ...move, moved: updated });

  if (type) {
    const payload = { ...eventPayload(updated, from), ...said, sequence };
    change.event({ clinicId: order.clinic_id, type, payload }, now);
  }
  change.write(
    repo.historyInsert(change, {
      id: newId(),
      medication_request_id: order.id,
      from_status: from,
      to_status: to,
      actor,
      actor_id: named.actorId,
      actor_name: named.actorName,
      at: now,
      ...(reason === null ? {} : { message: reason }),
    }),
  );

  if (order.refill_of !== null && (to === 'shipped' || to === 'delivered' || to === 'cancelled')) {
    const closed = await closeRefillRequest(trx, order.id, to === 'cancelled' ? 'cancelled' : 'fulfilled', now);
    if (closed && to === 'cancelled') {
      // A cancelled refill was never dispensed: its medications get their refill back.
      const items = await repo.listItemsOfOrder(trx, order.id);
      await repo.releaseRefills(
        trx,
        items.map((i) => i.origin_item_id),
      );
    }
  }
  return updated;
}

/** The payload of an order's status event: ids, statuses and shipping facts, never PHI (the rooms' steps add theirs). */
function eventPayload(order: OrderTable, from: OrderStatus): Record<string, unknown> {
  switch (order.status) {
    case 'shipped':
      return {
        medication_request_id: order.id,
        status: 'shipped',
        tracking_number: order.tracking_number,
        carrier_id: order.carrier_id,
        shipped_at: order.shipped_at,
      };
    case 'delivered':
      return { medication_request_id: order.id, status: 'delivered', delivered_at: order.delivered_at };
    default:
      return { medication_request_id: order.id, status: order.status, previous_status: from, cancelled_at: order.cancelled_at };
  }
}

/** A `delivery_exception` hold of a shipped order: the parcel has left, the order cannot be cancelled. */
export function shippedHoldNotCancellable() {
  return conflict('The medication request has shipped: it cannot be cancelled (its hold is about the delivery)', {
    status: 'is on_hold from shipped; it can only be resumed to shipped',
  });
}

export function illegalTransition(from: OrderStatus, to: OrderStatus) {
  const allowed = allowedNext(from);
  return conflict(illegalTransitionMessage(from, to), {
    status: allowed.length === 0 ? `is ${from}, a final state` : `is ${from}; allowed next: ${allowed.join(', ')}`,
  });
}

export async function loadForUpdate(trx: Trx, scope: Scope, orderId: string): Promise<OrderTable> {
  const order = scope === 'all' ? await repo.findOrderUnscoped(trx, orderId) : await repo.findOrder(trx, scope.clinicId, orderId);
  if (!order) throw notFoundIn({ type: 'medication_request', id: orderId }, 'Medication request not found');
  return order;
}
