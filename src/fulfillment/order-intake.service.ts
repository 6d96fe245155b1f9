import { NotFoundInClinic, type NamedRecord } from '../audit/denied-access.js';
import { newId } from '../shared/ids.js';
import { assertClinicScope } from '../clinics/clinic.service.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { isoNow } from '../clock.js';
import { toFlag } from '../db/columns.js';
import { AppError, notFound, type ErrorDetails } from '../errors.js';
import { blankToNull } from '../shared/text.js';
import { medicationKey } from '../medications/medication-name.js';
import { findFormularyEntries } from '../medications/medication.service.js';
import { checkFormulary, checkShippable, checkShipping, checkSpecies } from '../orders/order-rules.js';
import { checkDestination, destinationRules } from '../orders/destination-check.js';
import { initialStatusFields } from '../orders/order-status.js';
import { newItemRow, storeNewOrder } from '../orders/new-order.js';
import { heldAtIntake, intakeHold, intakeNeedsTransaction } from '../holds/intake-hold.service.js';
import { replaceOrders, replacementsOf } from './order-replacement.js';
import { DEFAULT_DISPENSE_UNIT, dispenseUnitOf } from '../medications/dispense-unit.js';
import type { OrderTable } from '../orders/order.tables.js';
import type { CreateOrderInput } from '../orders/order.schemas.js';
import { findPartiesAndPricedShipping } from '../orders/order-parties.repository.js';
import { coldChainRefusal, coldChainWarning, needsColdChain } from '../shipping/cold-chain.js';
import { listColdChainServices } from '../shipping/shipping.repository.js';

/**
 * POST /api/external/medication-order: checks the clinic, the patient and practitioner (404 naming
 * which), then every business rule at once (one 400 naming each problem), and stores the order, its
 * prescription and items, the priced shipping choice, the first history row and `order.created` in
 * one transaction, in status `pending`. A refrigerated order on a service that is not cold-chain
 * eligible is answered with `warnings`, or refused under COLD_CHAIN_POLICY=refuse (docs/shipping.md#cold-chain).
 */
export async function createOrder(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  input: CreateOrderInput,
  audit: AuditContext,
): Promise<{ medication_request_id: string; warnings?: string[] }> {
  await assertClinicScope(ctx, identity, input.clinic_id, 'clinic_id');
  const clinicId = identity.clinicId;

  const keys = input.medication_requests.map((item) => medicationKey(item.medication));
  const [parties, entries] = await Promise.all([
    findPartiesAndPricedShipping(ctx.db, clinicId, {
      patientId: input.patient_id,
      practitionerId: input.practitioner_id,
      carrierId: input.carrier_id,
      serviceId: input.service_id,
    }),
    findFormularyEntries(ctx, clinicId, [...new Set(keys)]),
  ]);
  if (!parties) throw notFound('Clinic not found');
  const { patient, practitioner } = parties;
  const formulary = new Map(entries.map((m) => [m.name_key, m]));
  const unknownMedications = checkFormulary(input.medication_requests, new Set(formulary.keys()));
  const shipping = checkShipping(parties.shipping, patient ?? { state: null }, input.carrier_id, input.service_id);
  const orderProblems = [unknownMedications, 'message' in shipping ? shipping : null].filter((p) => p !== null);
  if (!patient || !practitioner) {
    // Still 404, naming which; the order's other problems ride along, so a partner fixes all at once.
    const details: ErrorDetails = {};
    if (!patient) details.patient_id = 'no patient with this id in your clinic';
    if (!practitioner) details.practitioner_id = 'no practitioner with this id in your clinic';
    const what = !patient && !practitioner ? 'Patient and practitioner' : !patient ? 'Patient' : 'Practitioner';
    const missing: NamedRecord[] = [];
    if (!patient) missing.push({ type: 'patient', id: input.patient_id });
    if (!practitioner) missing.push({ type: 'practitioner', id: input.practitioner_id });
    const message = [`${what} not found`, ...orderProblems.map((p) => p.message)].join('; ');
    throw new NotFoundInClinic(missing, message, Object.assign(details, ...orderProblems.map((p) => p.details)) as ErrorDetails);
  }

  const destination = checkDestination(
    {
      state: patient.state,
      licence: parties.licence,
      prescriber: practitioner,
      items: keys.map((key, i) => ({ field: `medication_requests[${i}].medication`, entry: formulary.get(key) })),
    },
    destinationRules(ctx, isoNow(ctx.clock)),
  );
  const problems = [
    checkSpecies(patient, practitioner),
    checkShippable(patient, 'patient_id'),
    destination.problem,
    ...orderProblems,
  ].filter((p) => p !== null);
  // The service's flag came with its price (findPartiesAndPricedShipping): only a refusal reads more.
  const notCold = 'message' in shipping || !needsColdChain(input.is_refrigerated, shipping) ? null : shipping;
  if (notCold && ctx.config.coldChainPolicy === 'refuse') {
    problems.push(coldChainRefusal(notCold, await listColdChainServices(ctx.db, notCold.carrierId)));
  }
  if (problems.length > 0 || 'message' in shipping) {
    throw new AppError(
      'VALIDATION_ERROR',
      400,
      `Validation failed: ${problems.map((p) => p.message).join('; ')}`,
      Object.assign({}, ...problems.map((p) => p.details)) as ErrorDetails,
    );
  }
  if (destination.refusal) throw destination.refusal;

  const now = isoNow(ctx.clock);
  const order: OrderTable = {
    id: newId(),
    clinic_id: clinicId,
    patient_id: patient.id,
    practitioner_id: practitioner.id,
    carrier_id: shipping.carrierId,
    carrier_name: shipping.carrierName,
    service_id: shipping.serviceId,
    service_name: shipping.serviceName,
    shipping_original_cents: shipping.originalCents,
    shipping_total_cents: shipping.totalCents,
    free_shipment_type: shipping.freeShipmentType,
    is_refrigerated: toFlag(input.is_refrigerated),
    signature_required: toFlag(input.signature_required),
    saturday_delivery: toFlag(input.saturday_delivery),
    shipment_group_id: blankToNull(input.shipment_group_id),
    refill_of: null,
    chain_origin_id: null,
    ...initialStatusFields(now),
  };
  const prescriptionId = newId();
  const ordered = keys.map((key) => formulary.get(key));
  const replacing = replacementsOf(input.medication_requests);
  const items = input.medication_requests.map((item, position) => {
    const entry = ordered[position];
    const row = newItemRow(item, position, prescriptionId, {
      id: entry?.id ?? null,
      name: entry?.name ?? item.medication.trim(),
      dispenseUnit: entry === undefined ? DEFAULT_DISPENSE_UNIT : dispenseUnitOf(entry).unit,
    });
    // Every item of a replacing order has the column (one row shape); other orders' rows leave it out.
    return replacing.length === 0 ? row : { ...row, replaces_medication_request_id: item.replaces_medication_request_id ?? null };
  });

  await runChange(ctx, audit, async (change) => {
    // Allergies and duplicate therapy hold the order (waiting on the pharmacy); they never refuse it.
    // Checked in the order's transaction, after the patient's intake lock (intake-hold.service.ts).
    let hold = null;
    if (intakeNeedsTransaction(ordered, replacing.length)) {
      const trx = await change.transaction();
      const replaced = new Set(replacing.map((r) => r.id));
      hold = await intakeHold(ctx, trx, clinicId, patient, ordered, null, now, replaced);
      await replaceOrders(change, trx, replacing, order);
    }
    storeNewOrder(
      change,
      order,
      { id: prescriptionId, original_prescription_id: null },
      items,
      hold && heldAtIntake(order, hold),
    );
    change.audit('create', { type: 'medication_request', id: order.id, clinicId });
  });
  // Absent when there is nothing to warn of (docs/orders.md#creating-an-order).
  return notCold
    ? { medication_request_id: order.id, warnings: [coldChainWarning(notCold)] }
    : { medication_request_id: order.id };
}
