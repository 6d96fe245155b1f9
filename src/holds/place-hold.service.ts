import { openedHold } from './hold-stack.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { constraintViolation } from '../db/constraints.js';
import { fieldError } from '../errors.js';
import { canHold, type Actor, type OrderStatus } from '../orders/order-status.js';
import { loadForUpdate, namedActorOf, type NamedActor, type Scope } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import * as repo from '../orders/order.repository.js';
import { holdReasonOf, type WaitingOn } from './hold-reasons.js';
import { alreadyHeldFor, moveOrRefuse, notHoldable, recordHold } from './hold-change.js';
import { mirrorOf } from './hold-stack.js';
import { insertHold, listOpenHolds } from './order-holds.repository.js';

/** The pharmacy's hold (`POST /api/admin/medication-requests/{id}/hold`; the sandbox's). */
export interface HoldInput {
  reason_code: string;
  message: string;
  /** Only with `other`, where it is required: whose move it is. */
  waiting_on?: WaitingOn | undefined;
}

/**
 * Puts an order on hold, or adds a hold to an order already on hold (issue 39: holds stack; one
 * open hold per reason, a second is refused with 409 naming it). Only `pending` and `processing`
 * orders, and a shipped one for `delivery_exception`, can be held: another is refused with 409.
 * Records the hold's row, its history row (with the message, for the partner and the pharmacy),
 * `order.on_hold` when it is the order's first open hold or waits on the partner (ids and codes
 * only), and the audit row `hold`, in one change. Returns the order as it now is.
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
 * `exception`): refuses an order that cannot take the hold (409), opens the hold (its row, its
 * history row) and sends `order.on_hold` when the order goes on hold, or when the new hold waits on
 * the partner while others are open (the partner learns it must act); a hold of the pharmacy's added
 * to others sends nothing. The order's hold columns mirror the hold a partner reads first
 * (hold-stack.ts). Returns the order as it now is.
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
  const first = from !== 'on_hold';
  const announce = first || waitingOn === 'partner';
  const hold = openedHold({
    medication_request_id: current.id,
    reason_code: input.reason_code,
    waiting_on: waitingOn,
    message,
    opened_at: now,
    opened_by: actor,
    opened_by_id: named.actorId,
    opened_by_name: named.actorName,
  });
  const begun: repo.StatusChanges = first ? { hold_since: now, held_from: from, ...mirrorOf([hold]) } : {};
  // The conditional update holds the order's row: the open holds read after it are what committed.
  const sequence = await moveOrRefuse(trx, current, from, 'on_hold', now, begun, announce);
  const open = first ? [] : await listOpenHolds(trx, current.id);
  if (open.some((h) => h.reason_code === input.reason_code)) throw alreadyHeldFor(input.reason_code);
  try {
    await insertHold(trx, hold);
  } catch (error) {
    // The row lock above orders two holds of one order; the unique index is the last word all the same.
    if (constraintViolation(error) === 'unique') throw alreadyHeldFor(input.reason_code);
    throw error;
  }
  const mirror = first ? begun : mirrorOf([...open, hold]);
  if (!first) await repo.updateStatusIf(trx, current.id, 'on_hold', 'on_hold', now, mirror);
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
    holdId: hold.id,
  });
  if (announce) {
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
  }
  return { ...current, ...mirror, status: 'on_hold', updated_at: now, event_sequence: sequence };
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
