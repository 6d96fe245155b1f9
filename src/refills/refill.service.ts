import { newId } from '../shared/ids.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { constraintViolation } from '../db/constraints.js';
import { isoNow } from '../clock.js';
import { type AppError, validationError } from '../errors.js';
import { blankToNull } from '../shared/text.js';
import { medicationKey } from '../medications/medication-name.js';
import { findFormularyEntries } from '../medications/medication.service.js';
import { checkShippable, checkShipping } from '../orders/order-rules.js';
import { checkDestination, destinationRules } from '../orders/destination-check.js';
import { initialStatusFields, type OrderStatus } from '../orders/order-status.js';
import { storeNewOrder } from '../orders/new-order.js';
import { heldAtIntake, intakeHold } from '../holds/intake-hold.service.js';
import type { OrderTable, MedicationItemTable } from '../orders/order.tables.js';
import type { RefillInput } from './refill.schemas.js';
import * as requests from '../orders/order.repository.js';
import { findPartiesAndPricedShipping } from '../orders/order-parties.repository.js';
import * as refills from './refill.repository.js';
import { oneMsLater } from '../shared/instants.js';

/** The spec's three refill messages (Errors, rule 4), word for word. */
export const REFILL_MESSAGES = {
  notFound: 'Medication request not found',
  pending: 'Refills are not possible for pending medication requests',
  exists: 'Refill request already exists',
} as const;

const NOT_REFILLABLE: Record<Exclude<OrderStatus, 'shipped' | 'delivered' | 'pending'>, string> = {
  processing: 'Refills are not possible for medication requests that are still processing: request one once it has shipped',
  on_hold:
    'Refills are not possible for medication requests on hold: the order has not shipped; answer its hold (GET /api/external/medication-order/{id} shows it) and request a refill once it has shipped',
  cancelled: 'Refills are not possible for cancelled medication requests',
};

const refillError = (message: string, problem: string): AppError => validationError(message, { medication_request_id: problem });

/**
 * POST /api/external/refill-request. A refill may be requested of any shipped or delivered order of
 * a chain; it counts against the chain's first prescription, whose medications each authorize
 * `refills` refills (do_not_refill ones none). The refill copies the medications that still have
 * one, counting one against each, and creates in one transaction the refill request, a new
 * prescription and a new pending order (same patient, practitioner and shipping choice, priced
 * at today's prices), with `order.created` and `refill.ready`.
 */
export async function createRefill(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  input: RefillInput,
  audit: AuditContext,
): Promise<{ refill_request_id: string; medication_order_id: string }> {
  const clinicId = identity.clinicId;
  const order = await requests.findOrder(ctx.db, clinicId, input.medication_request_id);
  if (!order) throw refillError(REFILL_MESSAGES.notFound, 'no medication request with this id in your clinic');
  const status = order.status as OrderStatus;
  if (status === 'pending') throw refillError(REFILL_MESSAGES.pending, 'is pending');
  if (status === 'on_hold') throw refillError(NOT_REFILLABLE.on_hold, `is on_hold (${order.hold_reason_code ?? 'other'})`);
  if (status === 'processing' || status === 'cancelled') throw refillError(NOT_REFILLABLE[status], `is ${status}`);
  if (await refills.findOpenRefillRequest(ctx.db, order.id)) {
    throw refillError(REFILL_MESSAGES.exists, 'already has an open refill request');
  }

  const originId = order.chain_origin_id ?? order.id;
  const origins = await requests.listItemsOfOrder(ctx.db, originId);
  const authorized = origins.filter((i) => i.do_not_refill === 0 && i.refills > 0);
  if (authorized.length === 0) {
    throw refillError(
      'Refills are not authorized for this prescription: it allows no refills',
      'its prescription authorizes no refills',
    );
  }
  const left = authorized.filter((i) => i.refills_used < i.refills);
  if (left.length === 0) throw exhausted(authorized);

  // The patient and the shipping choice at today's price, in the query a new order's checks use.
  const parties = await findPartiesAndPricedShipping(ctx.db, clinicId, {
    patientId: order.patient_id,
    practitionerId: order.practitioner_id,
    carrierId: order.carrier_id,
    serviceId: order.service_id,
  });
  const patient = parties?.patient;
  if (!parties || !patient)
    throw refillError(REFILL_MESSAGES.notFound, 'the patient of this medication request no longer exists');
  const address = checkShippable(patient, 'medication_request_id');
  if (address) throw validationError(address.message, address.details);
  const formulary = new Map(
    (
      await findFormularyEntries(
        ctx,
        clinicId,
        left.map((i) => medicationKey(i.medication)),
      )
    ).map((m) => [m.name_key, m]),
  );
  const withdrawn = left.filter((i) => !formulary.has(medicationKey(i.medication)));
  if (withdrawn.length > 0) {
    throw refillError(
      `No longer in the clinic\u2019s formulary: ${withdrawn.map((i) => i.medication).join(', ')}`,
      'a medication of its prescription is no longer in the clinic\u2019s formulary',
    );
  }
  // Where the refill may go and who may prescribe it, as a new order's (orders/destination-check.ts).
  const destination = checkDestination(
    {
      state: patient.state,
      licence: parties.licence,
      prescriber: parties.practitioner,
      items: left.map((i) => ({ field: 'medication_request_id', entry: formulary.get(medicationKey(i.medication)) })),
    },
    destinationRules(ctx, isoNow(ctx.clock)),
  );
  if (destination.problem) throw validationError(destination.problem.message, destination.problem.details);
  if (destination.refusal) throw destination.refusal;
  const shipping = checkShipping(parties.shipping, patient, order.carrier_id, order.service_id);
  if ('message' in shipping) {
    throw refillError(
      `The shipping service of this medication request is no longer offered: ${shipping.message}`,
      'its shipping service is no longer offered',
    );
  }

  const now = isoNow(ctx.clock);
  const refillRequestId = newId();
  const newOrder: OrderTable = {
    ...order,
    id: newId(),
    carrier_name: shipping.carrierName,
    service_name: shipping.serviceName,
    shipping_original_cents: shipping.originalCents,
    shipping_total_cents: shipping.totalCents,
    free_shipment_type: shipping.freeShipmentType,
    shipment_group_id: blankToNull(input.shipment_group_id),
    refill_of: order.id,
    chain_origin_id: originId,
    ...initialStatusFields(now),
  };

  try {
    await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      // The patient's allergies as they are now, and other chains' orders: a refill of this chain is
      // never a duplicate. First, so that the patient's intake lock is taken before the refill's rows.
      const hold = await intakeHold(
        ctx,
        trx,
        clinicId,
        patient,
        left.map((i) => formulary.get(medicationKey(i.medication))),
        originId,
        now,
      );
      // Count the refill first, conditionally: two refills of one chain at once never exceed it.
      const counted: string[] = [];
      for (const item of left) if (await requests.useRefill(trx, item.id)) counted.push(item.id);
      if (counted.length === 0) throw exhausted(authorized);
      const after = await requests.findItems(trx, counted);

      const originPrescription = await requests.findPrescriptionOfOrder(trx, originId);
      const prescriptionId = newId();
      // refill.ready is an event of the new order it names: counted in the order's INSERT with the others.
      const sequence = storeNewOrder(
        change,
        newOrder,
        { id: prescriptionId, original_prescription_id: originPrescription?.id ?? null },
        after.map((item, position) => copyItem(item, position, prescriptionId)),
        hold && heldAtIntake(newOrder, hold),
        1,
      );
      // A millisecond later, so that partners receive order.created first (the outbox is delivered in (created_at, id) order).
      change.event(
        {
          clinicId,
          type: 'refill.ready',
          payload: {
            refill_request_id: refillRequestId,
            medication_request_id: newOrder.id,
            original_medication_request_id: order.id,
            status: 'open',
            sequence,
          },
        },
        oneMsLater(now),
      );
      // Last: the partial unique index refuses a second open refill request that raced past the check above.
      change.write(
        refills.refillRequestInsert(change, {
          id: refillRequestId,
          clinic_id: clinicId,
          medication_request_id: order.id,
          new_medication_request_id: newOrder.id,
          status: 'open',
          shipment_group_id: newOrder.shipment_group_id,
          created_at: now,
          updated_at: now,
        }),
      );
      change.audit(
        'create',
        { type: 'refill_request', id: refillRequestId, clinicId },
        { type: 'medication_request', id: newOrder.id, clinicId },
      );
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') throw refillError(REFILL_MESSAGES.exists, 'already has an open refill request');
    throw error;
  }
  return { refill_request_id: refillRequestId, medication_order_id: newOrder.id };
}

function exhausted(authorized: MedicationItemTable[]): AppError {
  const most = authorized.reduce((max, i) => Math.max(max, i.refills), 0);
  return refillError(
    most === 1
      ? 'Refills exhausted: the 1 refill authorized by this prescription has been used'
      : `Refills exhausted: all ${most} refills authorized by this prescription have been used`,
    'its prescription has no refills left',
  );
}

/** A refill's copy of a medication: what is left of its refills is what the new prescription authorizes. */
function copyItem(origin: MedicationItemTable, position: number, prescriptionId: string): MedicationItemTable {
  return {
    ...origin,
    id: newId(),
    prescription_id: prescriptionId,
    position,
    origin_item_id: origin.id,
    refills: Math.max(0, origin.refills - origin.refills_used),
    refills_used: 0,
  };
}
