import type { AuditContext } from '../audit/audit-actor.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { fieldError } from '../errors.js';
import { canHold, type Actor, type OrderStatus } from '../orders/order-status.js';
import { loadForUpdate, namedActorOf, type NamedActor, type Scope } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import type * as repo from '../orders/order.repository.js';
import { holdReasonOf, type WaitingOn } from './hold-reasons.js';
import { moveOrRefuse, notHoldable, recordHold } from './hold-change.js';

/** The pharmacy's hold (`POST /api/admin/medication-requests/{id}/hold`; the sandbox's). */
export interface HoldInput {
  reason_code: string;
  message: string;
  /** Only with `other`, where it is required: whose move it is. */
  waiting_on?: WaitingOn | undefined;
}

/**
 * Puts an order on hold, or changes the hold of an order already on hold (a new reason, message or
 * party to wait on; it keeps the status it will resume to and the time it was first held). Only
 * `pending` and `processing` orders can be held: a shipped or final one is refused with 409.
 * Records the history row (with the message, for the partner and the pharmacy), `order.on_hold`
 * (ids and codes only) and the audit row `hold`, in one change. Returns the order as it now is.
 */
export async function holdOrder(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  input: HoldInput,
  actor: Actor,
  audit: AuditContext,
): Promise<OrderTable> {
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, scope, orderId);
    const held = await holdInChange(change, trx, current, input, actor, namedActorOf(audit));
    change.audit('hold', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return held;
  });
}

/**
 * The hold of `holdOrder` as a step of the caller's change (the operator's hold, a shipment's
 * `exception`): refuses an order that cannot take the hold (409), records the history row and
 * `order.on_hold`. Returns the order as it now is.
 */
export async function holdInChange(
  change: SystemChange,
  trx: Trx,
  current: OrderTable,
  input: HoldInput,
  actor: Actor,
  named: NamedActor,
  now: string = change.at,
): Promise<OrderTable> {
  const waitingOn = waitingOnOf(input);
  const message = input.message.trim();
  const from = current.status as OrderStatus;
  if (!canHold(from, input.reason_code, current.held_from)) throw notHoldable(from, current.held_from);
  const set: repo.StatusChanges = {
    hold_reason_code: input.reason_code,
    hold_message: message,
    hold_waiting_on: waitingOn,
    hold_since: from === 'on_hold' ? (current.hold_since ?? now) : now,
    held_from: from === 'on_hold' ? (current.held_from ?? 'pending') : from,
    hold_answered_at: null,
  };
  const sequence = await moveOrRefuse(trx, current, from, 'on_hold', now, set, true);
  recordHold(change, current.id, {
    from,
    to: 'on_hold',
    kind: 'hold',
    actor,
    named,
    reasonCode: input.reason_code,
    waitingOn,
    message,
    at: now,
  });
  change.event(
    {
      clinicId: current.clinic_id,
      type: 'order.on_hold',
      payload: {
        medication_request_id: current.id,
        status: 'on_hold',
        reason_code: input.reason_code,
        waiting_on: waitingOn,
        sequence,
      },
    },
    now,
  );
  return { ...current, ...set, status: 'on_hold', updated_at: now, event_sequence: sequence };
}

/** Whose move a new hold is: the catalog's, or for `other` the pharmacy's word (required then, refused otherwise). */
function waitingOnOf(input: HoldInput): WaitingOn {
  const reason = holdReasonOf(input.reason_code);
  if (reason === undefined) throw fieldError('reason_code', 'is not a hold reason (GET /api/external/hold-reasons lists them)');
  if (reason.waiting_on === null) {
    if (input.waiting_on === undefined)
      throw fieldError('waiting_on', `is required with reason_code ${reason.code}: partner or pharmacy`);
    return input.waiting_on;
  }
  if (input.waiting_on !== undefined && input.waiting_on !== reason.waiting_on) {
    throw fieldError(
      'waiting_on',
      `is ${reason.waiting_on} for reason_code ${reason.code} (the catalog's); only reason_code other takes waiting_on`,
    );
  }
  return reason.waiting_on;
}
