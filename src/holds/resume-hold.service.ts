import type { AuditContext } from '../audit/audit-actor.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { blankToNull } from '../shared/text.js';
import { isResumeTarget, type Actor, type OrderStatus } from '../orders/order-status.js';
import { loadForUpdate, namedActorOf, type NamedActor, type Scope } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import * as repo from '../orders/order.repository.js';
import { moveOrRefuse, notOnHold, recordHold } from './hold-change.js';

/**
 * Resumes an order on hold to the status it was held from, with an optional message: 409 when it is
 * not on hold (a resume that lost a race to an answer that resumed or cancelled it is refused so).
 * Returns the order as it now is.
 */
export async function resumeOrder(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  message: string | undefined,
  actor: Actor,
  audit: AuditContext,
): Promise<OrderTable> {
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, scope, orderId);
    if (current.status !== 'on_hold') throw notOnHold(current.status, 'resume');
    const resumed = await resume(change, trx, current, actor, namedActorOf(audit), blankToNull(message));
    change.audit('resume', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return resumed;
  });
}

/** Returns a held order to the status it was held from, clearing its hold; its history row and `order.resumed`. */
export async function resume(
  change: SystemChange,
  trx: Trx,
  order: OrderTable,
  actor: Actor,
  named: NamedActor,
  message: string | null,
  at: string = change.at,
): Promise<OrderTable> {
  const to: OrderStatus = isResumeTarget(order.held_from ?? '') ? (order.held_from as OrderStatus) : 'pending';
  const sequence = await moveOrRefuse(trx, order, 'on_hold', to, at, repo.NO_HOLD, true);
  recordHold(change, order.id, {
    from: 'on_hold',
    to,
    kind: 'resume',
    actor,
    named,
    reasonCode: order.hold_reason_code ?? null,
    waitingOn: null,
    message,
    at,
  });
  change.event(
    { clinicId: order.clinic_id, type: 'order.resumed', payload: { medication_request_id: order.id, status: to, sequence } },
    at,
  );
  return { ...order, ...repo.NO_HOLD, status: to, updated_at: at, event_sequence: sequence };
}
