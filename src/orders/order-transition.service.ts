import { notFoundIn } from '../audit/denied-access.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { ServiceContext } from '../context.js';
import { actorName, type AuditContext } from '../audit/audit-actor.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import type { Trx } from '../db/database.js';
import { conflict, fieldError } from '../errors.js';
import type { OutboxEventType } from '../events/event-types.js';
import type { Environment } from '../config.js';
import { fillsAtShipping, type ShippedItem } from '../compounding/order-fill-record.js';
import {
  allowedNext,
  canTransition,
  illegalTransitionMessage,
  nextStatus,
  pathTo,
  type Actor,
  type OrderStatus,
} from './order-status.js';
import { loadOrderView } from '../fulfillment/order-view.js';
import type { OrderTable } from './order.tables.js';
import type { OrderViewData } from './order.schemas.js';
import * as repo from './order.repository.js';
import { closeRefillRequest } from './refill-request-of-order.repository.js';
import { newId } from '../shared/ids.js';
import { generateTrackingNumber, trackingFormatOf, trackingNumberProblem } from '../shipments/tracking-number.js';
import { requireSignoffFor } from '../compounding/signoff-gate.js';
import { addShipment, deliverRemainingShipments } from '../shipments/shipment-changes.js';

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

const UNNAMED: NamedActor = { actorId: null, actorName: null };

/**
 * The history's names for a change made by `audit`'s actor: a staff member's id and name, the
 * operator token, the command line's operator. A partner's change names nobody (as before).
 */
export function namedActorOf(audit: AuditContext): NamedActor {
  const { actor } = audit;
  return { actorId: actor.type === 'staff' ? actor.staffId : null, actorName: actorName(actor) };
}

/**
 * Applies one transition as part of the caller's change: refuses an illegal one (409 naming both
 * states), moves the order only if it is still in the state it was read in (so that of many
 * simultaneous identical transitions exactly one succeeds), records the history row and the
 * partner-facing event, and closes the refill request an order fulfils or cancels. `reason` (a
 * cancellation's) goes in the history row's message: the pharmacy's, never in the event. A move to
 * `shipped` first passes the fill check of `env` (order-fill-record.ts: production refuses an
 * unfilled item with a formula, development fills it); the default is production's, the strict one.
 * Returns the order as it now is.
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
  { deliveredAt }: { deliveredAt?: string } = {},
): Promise<OrderTable> {
  const from = order.status as OrderStatus;
  if (!canTransition(from, to)) throw illegalTransition(from, to);
  if (from === 'on_hold' && order.held_from === 'shipped') throw shippedHoldNotCancellable();

  const changes: repo.StatusChanges = {};
  if (to === 'shipped') {
    changes.tracking_number = trackingNumber ?? generateTrackingNumber(trackingFormatOf(order.carrier_id, order.carrier_name));
    changes.shipped_at = now;
  }
  if (to === 'delivered') changes.delivered_at = deliveredAt ?? now;
  if (to === 'cancelled') changes.cancelled_at = now;
  if (from === 'on_hold') Object.assign(changes, repo.NO_HOLD);

  const type = EVENT_OF[to];
  // A delivery not made by the shipments' journey (`deliveredAt` absent: a status change) delivers
  // the packages first, so that their `shipment.updated` events count before `order.delivered`.
  if (to === 'delivered' && deliveredAt === undefined) await deliverRemainingShipments(change, trx, now, order);
  // The move and, when it sends an event, the order's event count: one statement (docs/webhooks.md#ordering).
  const sequence = await repo.updateStatusIf(trx, order.id, from, to, now, changes, type !== undefined);
  if (sequence === null) {
    // Another change committed between our read and our update: refuse against the state it left.
    const current = await repo.findOrderUnscoped(trx, order.id);
    throw illegalTransition((current?.status ?? from) as OrderStatus, to);
  }
  // After the UPDATE, which holds the order's row: a fill committed meanwhile is seen, a later one
  // waits and then finds the order shipped. A refusal undoes the move with the rest of the change.
  const shippedItems = to === 'shipped' ? await fillsAtShipping(change, trx, now, order, env) : [];
  const updated: OrderTable = { ...order, ...changes, status: to, updated_at: now, event_sequence: sequence };
  // The order's first shipment (docs/shipping.md#shipments-and-their-journey).
  if (to === 'shipped') await addShipment(trx, now, order, order.carrier_id, order.service_id, changes.tracking_number as string);

  if (type) {
    const payload = { ...eventPayload(updated, from, shippedItems), sequence };
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

/** The payload of an order's status event: ids, statuses and shipping facts, never PHI. */
function eventPayload(order: OrderTable, from: OrderStatus, items: ShippedItem[]): Record<string, unknown> {
  switch (order.status) {
    case 'shipped':
      return {
        medication_request_id: order.id,
        status: 'shipped',
        tracking_number: order.tracking_number,
        carrier_id: order.carrier_id,
        shipped_at: order.shipped_at,
        items,
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

/**
 * One transition of one order (operator status change, partner cancellation), as one change,
 * audited with it (`transition`, or `cancel` for a partner's cancellation). `shipped`
 * needs a tracking number from the operator, in the format of the order's carrier
 * (tracking-number.ts); only `shipped` takes one. A cancellation may give a `reason`, kept in the
 * history (the console always asks for one; the API keeps it optional for older callers).
 */
export async function transitionOrder(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  to: OrderStatus,
  actor: Actor,
  audit: AuditContext,
  { trackingNumber, reason }: { trackingNumber?: string | undefined; reason?: string | undefined } = {},
): Promise<OrderViewData> {
  if (trackingNumber !== undefined && to !== 'shipped') {
    throw fieldError('tracking_number', 'is only accepted with status shipped');
  }
  if (to === 'shipped' && trackingNumber === undefined && actor !== 'sandbox') {
    throw fieldError('tracking_number', 'is required when status is shipped');
  }
  if (reason !== undefined && to !== 'cancelled') throw fieldError('reason', 'is only accepted with status cancelled');
  const order = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, scope, orderId);
    const tracking = trackingNumber?.trim();
    if (tracking !== undefined && canTransition(current.status as OrderStatus, to)) {
      const problem = trackingNumberProblem(trackingFormatOf(current.carrier_id, current.carrier_name), tracking);
      if (problem !== null) throw fieldError('tracking_number', problem);
    }
    const named = actor === 'partner' ? UNNAMED : namedActorOf(audit);
    // The pharmacy's moves need the pharmacist's sign-offs (REQUIRE_PHARMACIST_SIGNOFF); the
    // sandbox, which plays the pharmacy for a partner in development, does not.
    if (actor === 'operator') await requireSignoffFor(ctx.config, trx, current, to);
    const updated = await applyTransition(
      change,
      trx,
      change.at,
      current,
      to,
      actor,
      tracking,
      named,
      reason?.trim() ?? null,
      ctx.config.env,
    );
    const action = actor === 'partner' && to === 'cancelled' ? 'cancel' : 'transition';
    change.audit(action, { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return updated;
  });
  return loadOrderView(ctx.db, order);
}

/** POST /api/external/medication-order/{id}/cancel: pending and processing orders only. */
export async function cancelOrder(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  orderId: string,
  audit: AuditContext,
): Promise<OrderViewData> {
  return transitionOrder(ctx, { clinicId: identity.clinicId }, orderId, 'cancelled', 'partner', audit);
}

/**
 * The sandbox: moves an order to its next state, or to `to` through every legal step, all in one
 * change (each step gets its history row and event; shipping gets a test tracking number).
 * A partner's advance is audited as one `transition`; the development timer's (no request, no
 * actor, `audit` null) is not.
 */
export async function advanceOrder(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  audit: AuditContext | null,
  to?: OrderStatus,
): Promise<OrderViewData> {
  const advance = async (change: SystemChange): Promise<OrderTable> => {
    const trx = await change.transaction();
    let current = await loadForUpdate(trx, scope, orderId);
    const from = current.status as OrderStatus;
    let steps: OrderStatus[] | null;
    if (from === 'on_hold' && to !== 'cancelled') {
      throw conflict(
        'The medication request is on hold: resume it first (POST /api/external/sandbox/medication-order/{id}/resume)',
        {
          status: 'is on_hold; resume it, or cancel it',
        },
      );
    }
    if (to === undefined) {
      const next = nextStatus(from);
      if (next === null)
        throw conflict(`The medication request is ${from}, a final state: it cannot advance`, {
          status: `is ${from}, a final state`,
        });
      steps = [next];
    } else {
      steps = pathTo(from, to);
      if (steps === null) throw illegalTransition(from, to);
    }
    const start = ctx.clock().getTime();
    for (const [i, step] of steps.entries()) {
      // One millisecond apart, so that history rows and events sort in the order they happened
      // (the outbox is delivered in (created_at, id) order).
      const at = new Date(start + i).toISOString();
      current = await applyTransition(change, trx, at, current, step, 'sandbox', undefined, UNNAMED, null, ctx.config.env);
    }
    return current;
  };
  const order =
    audit === null
      ? await runChange(ctx, null, advance)
      : await runChange(ctx, audit, async (change) => {
          const advanced = await advance(change);
          change.audit('transition', { type: 'medication_request', id: advanced.id, clinicId: advanced.clinic_id });
          return advanced;
        });
  return loadOrderView(ctx.db, order);
}
