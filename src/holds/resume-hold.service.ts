// Over 250 lines: resuming and resolving one hold share their checks (who may resolve a clinical hold, the override reason, the last hold resumes the order) and their one transaction; split, the rule of the last hold would be written twice.
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { conflict, fieldError, notFound } from '../errors.js';
import { blankToNull } from '../shared/text.js';
import { isResumeTarget, type Actor, type OrderStatus } from '../orders/order-status.js';
import { loadForUpdate, namedActorOf, type NamedActor, type Scope } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import * as repo from '../orders/order.repository.js';
import { signedInPharmacist } from '../staff/acting-staff.js';
import { notOnHold, recordHold } from './hold-change.js';
import { clinicalOf, mirrorOf } from './hold-stack.js';
import type { OrderHoldTable } from './hold.tables.js';
import { findHold, listOpenHolds, resolveHoldsIf } from './order-holds.repository.js';

/*
 * Resolving holds (issue 39; docs/orders.md#holds): the pharmacy's resume (every open hold) and its
 * resolution of one hold, a clinical hold's override by the pharmacist signed in as themselves, and
 * the step every resolution shares: the order resumes when its last open hold is resolved.
 */

/** How a hold was resolved: the partner's answer, the pharmacy's resume, a pharmacist's override (clinical). */
export type HowResolved = 'answer' | 'resume' | 'override';

/** What the pharmacy sends with a resume or a resolution. */
export interface ResolveInput {
  message?: string | undefined;
  override_reason?: string | undefined;
}

/** Who resolves: the history's actor and names. */
export interface Resolver {
  actor: Actor;
  named: NamedActor;
}

/**
 * Resumes an order on hold to the status it was held from, resolving every open hold, with an
 * optional message: 409 when it is not on hold (a resume that lost a race to an answer that resumed
 * or cancelled it is refused so). A clinical hold among them needs the pharmacist signed in as
 * themselves and `override_reason` (clinicalOverride). Returns the order as it now is.
 */
export async function resumeOrder(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  input: ResolveInput,
  actor: Actor,
  audit: AuditContext,
): Promise<OrderTable> {
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, scope, orderId);
    const open = await lockOpenHolds(trx, current, change.at);
    const override = await clinicalOverride(trx, audit, actor, clinicalOf(open), input.override_reason);
    const resumed = await resolveHolds(
      change,
      trx,
      current,
      open,
      open,
      { actor, named: namedActorOf(audit) },
      {
        how: 'resume',
        message: blankToNull(input.message),
        overrideReason: override,
      },
    );
    change.audit('resume', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    if (override !== null) change.audit('override', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return resumed;
  });
}

/**
 * Resolves one hold of an order (`POST /api/admin/medication-requests/{id}/holds/{hold_id}/resolve`):
 * the order stays on hold while others are open, and resumes with the last. A clinical hold needs
 * the pharmacist signed in as themselves and `override_reason`. 404 for a hold not of this order,
 * 409 for one already resolved or an order not on hold. Returns the order as it now is.
 */
export async function resolveHold(
  ctx: ServiceContext,
  orderId: string,
  holdId: string,
  input: ResolveInput,
  audit: AuditContext,
): Promise<OrderTable> {
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, 'all', orderId);
    const hold = await findHold(trx, current.id, holdId);
    if (hold === undefined) throw notFound('Hold not found: the order has no hold with this id');
    const open = await lockOpenHolds(trx, current, change.at);
    const chosen = open.find((h) => h.id === holdId);
    if (chosen === undefined) throw alreadyResolved(hold);
    const override = await clinicalOverride(trx, audit, 'operator', clinicalOf([chosen]), input.override_reason);
    const resolved = await resolveHolds(
      change,
      trx,
      current,
      open,
      [chosen],
      { actor: 'operator', named: namedActorOf(audit) },
      {
        how: 'resume',
        message: blankToNull(input.message),
        overrideReason: override,
      },
    );
    const resource = { type: 'medication_request', id: current.id, clinicId: current.clinic_id } as const;
    change.audit(override === null ? 'resume' : 'override', resource);
    return resolved;
  });
}

/**
 * The pharmacist's override a clinical hold needs, or null when none of `clinical` is open:
 * - the sandbox cannot resolve one (409: it plays the pharmacy, not a pharmacist);
 * - anyone but a pharmacist signed in as themselves is refused with 403 naming why (the operator
 *   token, the command line, an admin, a technician, a partner: staff/acting-staff.ts);
 * - the pharmacist must give `override_reason` (400 naming it); a resume's `message` is not one.
 * `override_reason` with no clinical hold to resolve is refused (400 naming it).
 */
export async function clinicalOverride(
  trx: Trx,
  audit: AuditContext,
  actor: Actor,
  clinical: readonly OrderHoldTable[],
  overrideReason: string | undefined,
): Promise<string | null> {
  if (clinical.length === 0) {
    if (overrideReason !== undefined) {
      throw fieldError(
        'override_reason',
        'is only for a clinical hold (allergy_conflict, duplicate_therapy), and none is resolved here',
      );
    }
    return null;
  }
  const codes = clinical.map((h) => h.reason_code).join(', ');
  if (actor !== 'operator') {
    throw conflict(`A clinical hold (${codes}) is resolved only by a pharmacist's override: the ${actor} cannot resolve it`, {
      status: `is on_hold for ${codes}, which only a pharmacist signed in as themselves resolves, with an override_reason`,
    });
  }
  await signedInPharmacist(trx, audit, `resolve a clinical hold (${codes})`);
  const reason = blankToNull(overrideReason);
  if (reason === null) {
    throw fieldError('override_reason', `is required to resolve a clinical hold (${codes}): why the order may proceed`);
  }
  return reason;
}

/**
 * Holds the order's row (a conditional update that finds it on hold, else 409) and reads its open
 * holds: what another change resolved meanwhile has committed (PostgreSQL waits for its row lock).
 */
export async function lockOpenHolds(trx: Trx, order: OrderTable, at: string): Promise<OrderHoldTable[]> {
  if (order.status !== 'on_hold') throw notOnHold(order.status, 'resume');
  const locked = await repo.updateStatusIf(trx, order.id, 'on_hold', 'on_hold', at, {});
  if (locked === null) throw notOnHold((await repo.findOrderUnscoped(trx, order.id))?.status ?? order.status, 'resume');
  return listOpenHolds(trx, order.id);
}

/**
 * Resolves `chosen` among the order's `open` holds (read by lockOpenHolds): clinical ones as
 * `override` with its reason, the others as `how`. Each gets its history row: `resolve` while others
 * stay open (the order's hold columns then mirror those), and for the last one `resume`, when the
 * order returns to the status it was held from with `order.resumed`. 409 when another change
 * resolved one first. Returns the order as it now is.
 */
export async function resolveHolds(
  change: SystemChange,
  trx: Trx,
  order: OrderTable,
  open: readonly OrderHoldTable[],
  chosen: readonly OrderHoldTable[],
  who: Resolver,
  { how, message, overrideReason }: { how: HowResolved; message: string | null; overrideReason: string | null },
  at: string = change.at,
): Promise<OrderTable> {
  const clinical = new Set(clinicalOf(chosen).map((h) => h.id));
  const resolution = (h: OrderHoldTable): HowResolved => (clinical.has(h.id) ? 'override' : how);
  for (const kind of ['override', how] as const) {
    const ids = chosen.filter((h) => resolution(h) === kind).map((h) => h.id);
    const done = await resolveHoldsIf(trx, order.id, ids, {
      resolved_at: at,
      resolution: kind,
      resolved_by: who.actor,
      resolved_by_id: who.named.actorId,
      resolved_by_name: who.named.actorName,
      override_reason: kind === 'override' ? overrideReason : null,
    });
    if (done < ids.length) throw conflict('A hold was resolved by another change meanwhile: read the order again');
    if (kind === how) break;
  }
  const remaining = open.filter((h) => !chosen.some((c) => c.id === h.id));
  const last = remaining.length === 0 ? chosen[chosen.length - 1] : undefined;
  for (const h of chosen) {
    if (h === last) continue;
    recordHold(change, order.id, {
      ...step(h, resolution(h), overrideReason),
      from: 'on_hold',
      to: 'on_hold',
      kind: 'resolve',
      actor: who.actor,
      named: who.named,
      message,
      at,
    });
  }
  if (remaining.length > 0) {
    const mirror = mirrorOf(remaining);
    await repo.updateStatusIf(trx, order.id, 'on_hold', 'on_hold', at, mirror);
    return { ...order, ...mirror, updated_at: at };
  }
  const to: OrderStatus = isResumeTarget(order.held_from ?? '') ? (order.held_from as OrderStatus) : 'pending';
  const sequence = await repo.updateStatusIf(trx, order.id, 'on_hold', to, at, repo.NO_HOLD, true);
  if (sequence === null) throw notOnHold('no longer on_hold', 'resume');
  recordHold(change, order.id, {
    ...(last ? step(last, resolution(last), overrideReason) : { reasonCode: order.hold_reason_code ?? null, waitingOn: null }),
    from: 'on_hold',
    to,
    kind: 'resume',
    actor: who.actor,
    named: who.named,
    message,
    at,
  });
  change.event(
    { clinicId: order.clinic_id, type: 'order.resumed', payload: { medication_request_id: order.id, status: to, sequence } },
    at,
  );
  return { ...order, ...repo.NO_HOLD, status: to, updated_at: at, event_sequence: sequence };
}

/** Resumes a held order, resolving every open hold as `resume` with no check (a delivered package ends its `delivery_exception` hold). */
export async function resume(
  change: SystemChange,
  trx: Trx,
  order: OrderTable,
  actor: Actor,
  named: NamedActor,
  message: string | null,
  at: string = change.at,
): Promise<OrderTable> {
  const open = await lockOpenHolds(trx, order, at);
  return resolveHolds(change, trx, order, open, open, { actor, named }, { how: 'resume', message, overrideReason: null }, at);
}

/** A history row's facts of one hold resolved. */
function step(h: OrderHoldTable, resolution: HowResolved, overrideReason: string | null) {
  return {
    reasonCode: h.reason_code,
    waitingOn: null,
    holdId: h.id,
    resolution,
    overrideReason: resolution === 'override' ? overrideReason : null,
  };
}

function alreadyResolved(hold: OrderHoldTable) {
  return conflict(
    `The hold (${hold.reason_code}) is already resolved (${hold.resolution ?? 'resolved'} at ${hold.resolved_at ?? '?'})`,
    {
      hold_id: `is resolved (${hold.resolution ?? 'resolved'}); the order's open holds are in its holds`,
    },
  );
}
