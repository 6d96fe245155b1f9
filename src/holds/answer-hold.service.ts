import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { AppError, conflict, fieldError } from '../errors.js';
import { blankToNull } from '../shared/text.js';
import { checkDestination, destinationRules } from '../orders/destination-check.js';
import { readDestinationFacts } from '../orders/destination-facts.js';
import { applyTransition, loadForUpdate, namedActorOf, type NamedActor } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import * as repo from '../orders/order.repository.js';
import { RESOLVED_BY_ADDRESS } from './hold-reasons.js';
import { moveOrRefuse, notOnHold, recordHold } from './hold-change.js';
import { oneMsLater } from '../shared/instants.js';
import { headlineOf, mirrorOf } from './hold-stack.js';
import { closeOpenHolds, listOpenHolds, markAnswered } from './order-holds.repository.js';
import { resolveHolds } from './resume-hold.service.js';

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

/**
 * The partner's answer to an order's holds: recorded in the history with the credential or portal
 * user that sent it; every open hold records it and those that waited on the partner now wait on the
 * pharmacy. An address becomes the order's shipping address and resolves the `address_undeliverable`
 * holds that waited on the partner (the order resumes when no other hold is open: a clinical hold
 * stays until a pharmacist's override); `cancel: true` cancels the order as the cancel route does.
 * An order not on hold is refused with 409. No event for the answer itself (a resume or a
 * cancellation it causes sends its own). Returns the order as it now is.
 */
export async function answerHold(
  ctx: ServiceContext,
  clinicId: string,
  orderId: string,
  input: HoldAnswerInput,
  audit: AuditContext,
): Promise<OrderTable> {
  if (input.cancel === true && input.address !== undefined) {
    throw fieldError('cancel', 'cannot be combined with address: an answer either corrects the address or cancels the order');
  }
  const message = input.message.trim();
  const named = partnerNamed(audit);
  return runChange(ctx, audit, async (change) => {
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
    // The conditional update holds the order's row: the open holds read after it are what committed.
    const sequence = await moveOrRefuse(trx, current, 'on_hold', 'on_hold', now, shipTo(input.address));
    const open = await listOpenHolds(trx, current.id);
    const headline = headlineOf(open);
    // An address resolves the holds it answers (address_undeliverable) that waited on the partner; the others stay.
    const byAddress =
      input.address === undefined ? [] : open.filter((h) => h.waiting_on === 'partner' && RESOLVED_BY_ADDRESS.has(h.reason_code));
    await markAnswered(trx, current.id, now);
    const answeredOpen = open.map((h) => ({ ...h, answered_at: now, waiting_on: 'pharmacy' }));
    const mirror = mirrorOf(answeredOpen);
    await repo.updateStatusIf(trx, current.id, 'on_hold', 'on_hold', now, mirror);
    recordHold(change, current.id, {
      from: 'on_hold',
      to: 'on_hold',
      kind: 'answer',
      actor: 'partner',
      named,
      reasonCode: headline?.reason_code ?? current.hold_reason_code ?? null,
      waitingOn: 'pharmacy',
      message,
      holdId: headline?.id ?? null,
    });
    change.audit('hold_response', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
    const answered: OrderTable = { ...current, ...shipTo(input.address), ...mirror, updated_at: now, event_sequence: sequence };

    if (input.cancel === true) {
      change.audit('cancel', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
      await closeOpenHolds(trx, current.id, oneMsLater(now));
      // A cancellation: no room takes part in it (orders/order-transition.ts NO_STEPS).
      return applyTransition(change, trx, oneMsLater(now), answered, 'cancelled', 'partner', undefined, named);
    }
    if (byAddress.length > 0) {
      const resolved = await resolveHolds(
        change,
        trx,
        answered,
        answeredOpen,
        answeredOpen.filter((h) => byAddress.some((b) => b.id === h.id)),
        { actor: 'partner', named },
        { how: 'answer', message: null, overrideReason: null },
        oneMsLater(now),
      );
      if (resolved.status !== 'on_hold') {
        change.audit('resume', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
      }
      return resolved;
    }
    return answered;
  });
}

/**
 * A corrected address is a new destination, held to intake's check of one (orders/destination-check.ts):
 * the pharmacy's licensed states, the restricted_states of the order's formulary entries, and with
 * REQUIRE_PRESCRIBER_STATE_LICENSE the prescriber's licence in the state. Refused as at intake (400
 * STATE_NOT_LICENSED or PRESCRIBER_NOT_LICENSED, with the state), naming `address.state`: nothing is
 * written, and the hold still waits on the partner. Only the destination's refusals apply: the
 * prescriber's DEA number does not depend on where the order goes, and intake checked it.
 */
async function checkNewDestination(ctx: ServiceContext, trx: Trx, order: OrderTable, state: string, at: string): Promise<void> {
  const rules = destinationRules(ctx, at);
  const { refusal } = checkDestination(await readDestinationFacts(trx, order, state, rules, 'address.state'), rules);
  if (refusal) throw atAddressState(refusal, state);
}

/** Intake's refusal of a destination, for the answer's field: `details` names `address.state` and keeps `state`. */
function atAddressState(refusal: AppError, state: string): AppError {
  return new AppError(refusal.code, refusal.statusCode, refusal.message, {
    state,
    'address.state': `the medication request may not be shipped to ${state}: answer with an address in a state it may go to, or with cancel: true`,
  });
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
