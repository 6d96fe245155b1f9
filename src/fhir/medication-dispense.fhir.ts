import type { MedicationDispense } from '@medplum/fhirtypes';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { isOrderStatus } from '../orders/order-status.js';
import type { FhirResourceKind, SearchPage } from './fhir-resource.js';
import { referenceIds, tokenCodes } from './criteria-values.js';
import { holdStatusReason } from './hold-status-reason.js';
import type { SearchQuery } from './fhir-search.js';
import {
  DISPENSE_STATUS_CODES,
  DISPENSE_STATUS_SYSTEM,
  dispenseConditions,
  medicationDispenseStatus,
  type DispenseStatus,
} from './medication-dispense-status.js';
import {
  countDispenseRows,
  findDispenseRow,
  listDispenseRows,
  type DispenseFilter,
  type DispenseRow,
} from './medication-dispense.repository.js';
import { FHIR_RESOURCE_SCOPES } from './smart-scopes.js';

/*
 * MedicationDispense (issue 32; docs/fhir.md#medicationdispense): one per medication item of an
 * order that has moved past `pending`, its id the item's id. The status follows the order
 * (medication-dispense-status.ts); the medication is the fill's Medication once filled (its id the
 * fill's id, as Medication reads it), the item's text before. Profile: US Core MedicationDispense,
 * whose must-supports we carry where we hold the data (no Encounter, no performer: the pharmacist who
 * filled is not shown to partners).
 * @see https://hl7.org/fhir/us/core/StructureDefinition-us-core-medicationdispense.html
 */

const UCUM = 'http://unitsofmeasure.org';
/** HL7 v3 ActPharmacySupplyType (MedicationDispense.type's example binding): first fill or refill. */
const ACT_CODE = 'http://terminology.hl7.org/CodeSystem/v3-ActCode';

/** The resource of an item, or undefined when the item has no dispense (its order never reached processing). */
export function toMedicationDispense(row: DispenseRow): MedicationDispense | undefined {
  if (!isOrderStatus(row.order_status)) return undefined;
  const status = medicationDispenseStatus({
    orderStatus: row.order_status,
    reachedProcessing: row.reached_processing === 1,
    filled: row.fill_id !== null,
  });
  if (status === null) return undefined;
  const medicationText = `${row.medication} ${row.dose}`;
  const holdReason = status === 'on-hold' ? holdStatusReason(row.hold_reason_code) : undefined;
  // us-core-20: a completed dispense says when it was handed over; shipping sets shipped_at, and a
  // delivered order was shipped first (delivered_at only stands in should shipped_at ever be missing).
  const handedOver = row.shipped_at ?? (status === 'completed' ? row.delivered_at : null);
  return {
    resourceType: 'MedicationDispense',
    id: row.item_id,
    status,
    ...(holdReason ? { statusReasonCodeableConcept: holdReason } : {}),
    type: {
      coding: [
        row.refill_of === null
          ? { system: ACT_CODE, code: 'FF', display: 'First Fill' }
          : { system: ACT_CODE, code: 'RF', display: 'Refill' },
      ],
    },
    ...(row.fill_id !== null
      ? { medicationReference: { reference: `Medication/${row.fill_id}`, display: medicationText } }
      : { medicationCodeableConcept: { text: medicationText } }),
    subject: { reference: `Patient/${row.patient_id}` },
    authorizingPrescription: [{ reference: `MedicationRequest/${row.item_id}` }],
    quantity: { value: row.quantity, ...(row.unit_of_measure !== null ? { unit: row.unit_of_measure } : {}) },
    ...(row.days_supply !== null ? { daysSupply: { value: row.days_supply, unit: 'days', system: UCUM, code: 'd' } } : {}),
    ...(row.compounded_at !== null ? { whenPrepared: row.compounded_at } : {}),
    ...(handedOver !== null ? { whenHandedOver: handedOver } : {}),
    dosageInstruction: [{ text: row.direction }],
  };
}

/** The orders read, once each (an order's items are one audited record: the medication request). */
function auditOf(rows: readonly DispenseRow[], clinicId: string): AuditedResource[] {
  return [...new Set(rows.map((row) => row.order_id))].map((id) => ({ type: 'medication_request', id, clinicId }));
}

/**
 * The search's criteria as a filter of items, or undefined when nothing can match (a status we never
 * give, such as `stopped`, or a status of another code system).
 */
function dispenseFilterOf(query: SearchQuery): DispenseFilter | undefined {
  const statuses = tokenCodes(query, 'status', DISPENSE_STATUS_SYSTEM);
  const conditions = dispenseConditions(statuses === undefined ? undefined : new Set(statuses as DispenseStatus[]));
  if (conditions.length === 0) return undefined;
  const itemIds = tokenCodes(query, '_id');
  const patientIds = referenceIds(query, 'patient');
  return { conditions, ...(itemIds ? { itemIds } : {}), ...(patientIds ? { patientIds } : {}) };
}

const NOTHING: SearchPage<MedicationDispense> = { matches: [], total: 0, hasMore: false, audit: [] };

export const medicationDispenseKind: FhirResourceKind<MedicationDispense> = {
  type: 'MedicationDispense',
  scope: FHIR_RESOURCE_SCOPES.MedicationDispense,
  searchParams: [
    {
      name: '_id',
      type: 'token',
      documentation: 'The dispense id (the medication item id); alternatives comma-separated.',
      definition: 'http://hl7.org/fhir/SearchParameter/Resource-id',
    },
    {
      name: 'patient',
      type: 'reference',
      target: 'Patient',
      documentation: 'The patient the medication was dispensed to (Patient/<patient id>).',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-medicationdispense-patient',
    },
    {
      name: 'status',
      type: 'token',
      codes: DISPENSE_STATUS_CODES,
      documentation:
        'The dispense status, from the order: completed (shipped or delivered), in-progress (processing, filled), preparation (processing, not filled), on-hold, cancelled.',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-medicationdispense-status',
    },
  ],

  async read(ctx, clinicId, id) {
    const row = await findDispenseRow(ctx.db, clinicId, id);
    const resource = row === undefined ? undefined : toMedicationDispense(row);
    if (row === undefined || resource === undefined) return undefined;
    return { resource, audit: auditOf([row], clinicId) };
  },

  async search(ctx, clinicId, query, paging) {
    const filter = dispenseFilterOf(query);
    if (filter === undefined) return NOTHING;
    const [rows, total] = await Promise.all([
      listDispenseRows(ctx.db, clinicId, filter, paging.afterId, paging.count + 1),
      countDispenseRows(ctx.db, clinicId, filter),
    ]);
    const page = rows.slice(0, paging.count);
    return {
      // Every row matched the filter, which is the status mapping read backwards: each has a dispense.
      matches: page.flatMap((row) => toMedicationDispense(row) ?? []),
      total,
      hasMore: rows.length > paging.count,
      audit: auditOf(page, clinicId),
    };
  },
};
