import type { AuditContext } from '../audit/audit-actor.js';
import { runChange, type SystemChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { AppError, conflict, fieldError } from '../errors.js';
import { medicationKey } from '../medications/medication-name.js';
import { findMedicationsByKeys } from '../medications/medication.repository.js';
import { findPractitioner } from '../practitioners/practitioner.repository.js';
import { findStateLicence } from '../shipping/licensed-states.repository.js';
import { checkCredentialsAndDestination } from '../orders/credential-rules.js';
import { stateNotLicensed } from '../orders/order-rules.js';
import { newId } from '../shared/ids.js';
import { holdReasonOf, RESUMED_BY_ADDRESS, type WaitingOn } from './hold-reasons.js';
import { canHold, isResumeTarget, type Actor, type OrderStatus } from '../orders/order-status.js';
import { applyTransition, loadForUpdate, namedActorOf, type NamedActor, type Scope } from '../orders/order-transition.service.js';
import { loadOrderView } from '../fulfillment/order-view.js';
import type { OrderTable, StatusHistoryTable } from '../orders/order.tables.js';
import type { OrderViewData } from '../orders/order.schemas.js';
import * as repo from '../orders/order.repository.js';

/** The pharmacy's hold (`POST /api/admin/medication-requests/{id}/hold`; the sandbox's). */
export interface HoldInput {
  reason_code: string;
  message: string;
  /** Only with `other`, where it is required: whose move it is. */
  waiting_on?: WaitingOn | undefined;
}

/** The patient's address shape, as a hold answer corrects it. */
export interface AnswerAddress {
  addressLine1: string;
  addressLine2?: string | undefined;
  city: string;
  state: string;
  postalCode: string;
}

/** The partner's answer (`POST /api/external/medication-order/{id}/hold-response`). */
export interface HoldAnswerInput {
  message: string;
  address?: AnswerAddress | undefined;
  cancel?: boolean | undefined;
}

type HoldKind = 'hold' | 'answer' | 'resume';

/**
 * The sandbox's hold (the partner API's and the portal's): any catalog code, with defaults a
 * partner testing its handling needs no thought for: the message is the reason's text, and `other`
 * waits on the partner unless `waiting_on` says otherwise.
 */
export function sandboxHoldInput(body: {
  reason_code: string;
  message?: string | undefined;
  waiting_on?: WaitingOn | undefined;
}): HoldInput {
  const reason = holdReasonOf(body.reason_code);
  return {
    reason_code: body.reason_code,
    message: body.message ?? reason?.reason ?? body.reason_code,
    waiting_on: body.waiting_on ?? (reason?.waiting_on === null ? 'partner' : undefined),
  };
}

/**
 * Puts an order on hold, or changes the hold of an order already on hold (a new reason, message or
 * party to wait on; it keeps the status it will resume to and the time it was first held). Only
 * `pending` and `processing` orders can be held: a shipped or final one is refused with 409.
 * Records the history row (with the message, for the partner and the pharmacy), `order.on_hold`
 * (ids and codes only) and the audit row `hold`, in one change.
 */
export async function holdOrder(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  input: HoldInput,
  actor: Actor,
  audit: AuditContext,
): Promise<OrderViewData> {
  const order = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, scope, orderId);
    const held = await holdInChange(change, trx, current, input, actor, namedActorOf(audit));
    change.audit('hold', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return held;
  });
  return loadOrderView(ctx.db, order);
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

/**
 * Resumes an order on hold to the status it was held from, with an optional message: 409 when it is
 * not on hold (a resume that lost a race to an answer that resumed or cancelled it is refused so).
 */
export async function resumeOrder(
  ctx: ServiceContext,
  scope: Scope,
  orderId: string,
  message: string | undefined,
  actor: Actor,
  audit: AuditContext,
): Promise<OrderViewData> {
  const order = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, scope, orderId);
    if (current.status !== 'on_hold') throw notOnHold(current.status, 'resume');
    const resumed = await resume(change, trx, current, actor, namedActorOf(audit), blankToNull(message));
    change.audit('resume', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    return resumed;
  });
  return loadOrderView(ctx.db, order);
}

/**
 * The partner's answer to a hold: recorded in the history with the credential or portal user that
 * sent it, and the hold then waits on the pharmacy. An address becomes the order's shipping address
 * (an `address_undeliverable` hold resumes at once); `cancel: true` cancels the order as the cancel
 * route does. An order not on hold is refused with 409. No event for the answer itself (a resume or
 * a cancellation it causes sends its own).
 */
export async function answerHold(
  ctx: ServiceContext,
  clinicId: string,
  orderId: string,
  input: HoldAnswerInput,
  audit: AuditContext,
): Promise<OrderViewData> {
  if (input.cancel === true && input.address !== undefined) {
    throw fieldError('cancel', 'cannot be combined with address: an answer either corrects the address or cancels the order');
  }
  const message = input.message.trim();
  const named = partnerNamed(audit);
  const order = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const current = await loadForUpdate(trx, { clinicId }, orderId);
    if (current.status !== 'on_hold') throw notOnHold(current.status, 'answer');
    if (input.address !== undefined) await checkNewDestination(ctx, trx, current, input.address.state.toUpperCase(), change.at);
    if (input.cancel === true && current.held_from === 'shipped') {
      throw conflict('The medication request has shipped: it cannot be cancelled; answer about the delivery instead', {
        cancel: 'is refused: the order has shipped (its hold is a delivery_exception)',
      });
    }
    const now = change.at;
    const set: repo.StatusChanges = { hold_waiting_on: 'pharmacy', hold_answered_at: now, ...shipTo(input.address) };
    const sequence = await moveOrRefuse(trx, current, 'on_hold', 'on_hold', now, set);
    recordHold(change, current.id, {
      from: 'on_hold',
      to: 'on_hold',
      kind: 'answer',
      actor: 'partner',
      named,
      reasonCode: current.hold_reason_code ?? null,
      waitingOn: 'pharmacy',
      message,
    });
    change.audit('hold_response', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    const answered: OrderTable = { ...current, ...set, updated_at: now, event_sequence: sequence };

    if (input.cancel === true) {
      change.audit('cancel', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
      return applyTransition(change, trx, later(now), answered, 'cancelled', 'partner', undefined, named);
    }
    if (input.address !== undefined && RESUMED_BY_ADDRESS.has(current.hold_reason_code ?? '')) {
      change.audit('resume', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
      return resume(change, trx, answered, 'partner', named, null, later(now));
    }
    return answered;
  });
  return loadOrderView(ctx.db, order);
}

/**
 * A corrected address is a new destination, held to intake's rules for one (order-rules.ts
 * `stateNotLicensed`, credential-rules.ts): the pharmacy's licensed states, the restricted_states of
 * the order's formulary entries, and with REQUIRE_PRESCRIBER_STATE_LICENSE the prescriber's licence
 * in the state. Refused as at intake (400 STATE_NOT_LICENSED or PRESCRIBER_NOT_LICENSED, with the
 * state), naming `address.state`: nothing is written, and the hold still waits on the partner. An
 * item whose entry has left the formulary since intake restricts nothing (it is not refused again).
 */
async function checkNewDestination(ctx: ServiceContext, trx: Trx, order: OrderTable, state: string, at: string): Promise<void> {
  const unlicensed = stateNotLicensed({ state }, await findStateLicence(trx, state), ctx.config.env);
  if (unlicensed) throw atAddressState(unlicensed, state);
  const items = await repo.listItemsOfOrder(trx, order.id);
  const keys = [...new Set(items.map((item) => medicationKey(item.medication)))];
  const entries = new Map((await findMedicationsByKeys(trx, order.clinic_id, keys)).map((entry) => [entry.name_key, entry]));
  const requireStateLicense = ctx.config.requirePrescriberStateLicense;
  const { refusal } = checkCredentialsAndDestination({
    state,
    prescriber: requireStateLicense ? ((await findPractitioner(trx, order.clinic_id, order.practitioner_id)) ?? null) : null,
    items: items.map((item) => ({ field: 'address.state', entry: entries.get(medicationKey(item.medication)) })),
    requireStateLicense,
    today: at.slice(0, 10),
  });
  if (refusal) throw atAddressState(refusal, state);
}

/** Intake's refusal of a destination, for the answer's field: `details` names `address.state` and keeps `state`. */
function atAddressState(refusal: AppError, state: string): AppError {
  return new AppError(refusal.code, refusal.statusCode, refusal.message, {
    state,
    'address.state': `the medication request may not be shipped to ${state}: answer with an address in a state it may go to, or with cancel: true`,
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

/**
 * The conditional update of a hold, a resume or an answer: it applies only if the order is still
 * in `from`, so of a resume and an answer sent together exactly one finds the order on hold when
 * both would move it (PostgreSQL re-reads the row after the other's commit; SQLite runs them one
 * after the other). With `bumpSequence` (the move sends an order event) it counts the event too;
 * returns the order's event sequence after the update.
 */
async function moveOrRefuse(
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

function recordHold(
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
  };
  change.write(repo.historyInsert(change, history));
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

/** Who answered, for the pharmacy's history: the API key, the OAuth client or the portal user. */
function partnerNamed(audit: AuditContext): NamedActor {
  const { actor } = audit;
  switch (actor.type) {
    case 'partner':
      return { actorId: actor.apiKeyId, actorName: 'API key' };
    case 'oauth_client':
      return { actorId: actor.oauthClientId, actorName: 'OAuth client' };
    case 'partner_user':
      return { actorId: actor.partnerUserId, actorName: actor.name ?? actor.email };
    default:
      return namedActorOf(audit);
  }
}

function shipTo(address: AnswerAddress | undefined): repo.StatusChanges {
  if (address === undefined) return {};
  return {
    ship_to_address_line1: address.addressLine1.trim(),
    ship_to_address_line2: blankToNull(address.addressLine2),
    ship_to_city: address.city.trim(),
    ship_to_state: address.state.toUpperCase(),
    ship_to_postal_code: address.postalCode,
  };
}

/** One millisecond after `at`: the next step of the same change sorts after the answer in the history and the outbox. */
const later = (at: string): string => new Date(Date.parse(at) + 1).toISOString();

const blankToNull = (text: string | undefined): string | null => {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? null : trimmed;
};

function notHoldable(status: OrderStatus, heldFrom?: string | null) {
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

function notOnHold(status: string, what: 'answer' | 'resume') {
  const verb = what === 'answer' ? 'there is no hold to answer' : 'there is no hold to resume';
  return conflict(`The medication request is not on hold (it is ${status}): ${verb}`, { status: `is ${status}, not on_hold` });
}
