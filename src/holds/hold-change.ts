import type { SystemChange } from '../changes/run-change.js';
import type { Trx } from '../db/database.js';
import { conflict } from '../errors.js';
import { newId } from '../shared/ids.js';
import type { Actor, OrderStatus } from '../orders/order-status.js';
import type { NamedActor } from '../orders/order-transition.js';
import type { OrderTable, StatusHistoryTable } from '../orders/order.tables.js';
import * as repo from '../orders/order.repository.js';
import type { WaitingOn } from './hold-reasons.js';

/*
 * The steps a hold, a resume and an answer share (docs/orders.md#holds): the order's conditional
 * update, the conversation's history row, and their refusals.
 */

/** A row of the holds' conversation: `resolve` is one hold resolved while others stay open; `resume`, the last. */
export type HoldKind = 'hold' | 'answer' | 'resolve' | 'resume';

/**
 * The conditional update of a hold, a resume or an answer: it applies only if the order is still
 * in `from`, so of a resume and an answer sent together exactly one finds the order on hold when
 * both would move it (PostgreSQL re-reads the row after the other's commit; SQLite runs them one
 * after the other). With `bumpSequence` (the move sends an order event) it counts the event too;
 * returns the order's event sequence after the update.
 */
export async function moveOrRefuse(
  trx: Trx,
  order: OrderTable,
  from: OrderStatus,
  to: OrderStatus,
  at: string,
  set: repo.StatusChanges,
  bumpSequence = false,
): Promise<number> {
  const sequence = await repo.updateStatusIf(trx, order.id, from, to, at, set, bumpSequence);
  if (sequence !== null) return sequence;
  const now = (await repo.findOrderUnscoped(trx, order.id))?.status ?? order.status;
  if (to === 'on_hold' && from !== 'on_hold') throw notHoldable(now as OrderStatus);
  throw notOnHold(now, from === to ? 'answer' : 'resume');
}

export function recordHold(
  change: SystemChange,
  orderId: string,
  row: {
    from: OrderStatus;
    to: OrderStatus;
    kind: HoldKind;
    actor: Actor;
    named: NamedActor;
    reasonCode: string | null;
    waitingOn: WaitingOn | null;
    message: string | null;
    at?: string;
    holdId?: string | null;
    resolution?: string | null;
    overrideReason?: string | null;
  },
): void {
  const history: StatusHistoryTable = {
    id: newId(),
    medication_request_id: orderId,
    from_status: row.from,
    to_status: row.to,
    actor: row.actor,
    actor_id: row.named.actorId,
    actor_name: row.named.actorName,
    at: row.at ?? change.at,
    kind: row.kind,
    reason_code: row.reasonCode,
    waiting_on: row.waitingOn,
    message: row.message,
    hold_id: row.holdId ?? null,
    resolution: row.resolution ?? null,
    override_reason: row.overrideReason ?? null,
  };
  change.write(repo.historyInsert(change, history));
}

export function notHoldable(status: OrderStatus, heldFrom?: string | null) {
  if (status === 'shipped' || heldFrom === 'shipped') {
    return conflict(
      'Cannot put the medication request on hold: it has shipped; a shipped order takes only a delivery_exception hold',
      { reason_code: 'must be delivery_exception for a shipped order' },
    );
  }
  return conflict(
    `Cannot put the medication request on hold: ${status} is a final state; only pending, processing and shipped orders can be held`,
    {
      status: `is ${status}; only pending, processing, shipped (delivery_exception) or on_hold orders can be held`,
    },
  );
}

export function notOnHold(status: string, what: 'answer' | 'resume') {
  const verb = what === 'answer' ? 'there is no hold to answer' : 'there is no hold to resume';
  return conflict(`The medication request is not on hold (it is ${status}): ${verb}`, { status: `is ${status}, not on_hold` });
}

/** A second open hold of one reason: one hold per reason is open at a time (its message may be updated by answering, or resolve it first). */
export function alreadyHeldFor(reasonCode: string) {
  return conflict(`The medication request is already on hold for ${reasonCode}: one hold per reason is open at a time`, {
    reason_code: `${reasonCode} is already open on this order; resolve it before holding it again for ${reasonCode}`,
  });
}
