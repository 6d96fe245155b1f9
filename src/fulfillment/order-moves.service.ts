import type { PartnerIdentity } from '../partner-identity.js';
import type { ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import { conflict, fieldError } from '../errors.js';
import { canTransition, nextStatus, pathTo, type Actor, type OrderStatus } from '../orders/order-status.js';
import { illegalTransition, loadForUpdate, namedActorOf, UNNAMED, type Scope } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import { requireSignoffFor } from '../compounding/signoff-gate.js';
import { trackingFormatOf, trackingNumberProblem } from '../shipments/tracking-number.js';
import { moveOrder } from './order-move.js';
import { loadOrderView } from './order-view.js';
import type { OrderViewData } from './order-view.schemas.js';

/*
 * The moves of an order by status (the pharmacy's status change, the partner's cancellation, the
 * sandbox's advance): each one change, through the sign-off gate (compounding) and the rooms' steps
 * of a move (order-move.ts), answered with the order as partners read it.
 */

/**
 * One transition of one order (operator status change, partner cancellation), as one change,
 * audited with it (`transition`, or `cancel` for a partner's cancellation). `shipped`
 * needs a tracking number from the operator, in the format of the order's carrier
 * (shipments/tracking-number.ts); only `shipped` takes one. A cancellation may give a `reason`, kept in the
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
    const updated = await moveOrder(
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
      current = await moveOrder(change, trx, at, current, step, 'sandbox', undefined, UNNAMED, null, ctx.config.env);
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
