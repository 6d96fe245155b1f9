import type { Medication, MedicationRequest } from '@medplum/fhirtypes';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import type { DbOrTrx } from '../db/database.js';
import type { FhirResourceKind } from './fhir-resource.js';
import type { SearchQuery } from './fhir-search.js';
import { referenceIds, tokenCodes } from './criteria-values.js';
import { daysOf, quantityOf } from './fhir-quantity.js';
import { holdStatusReason } from './hold-status-reason.js';
import { loadMedications, uniqueReads } from './medication-resources.js';
import {
  countMedicationRequests,
  pageMedicationRequests,
  type MedicationRequestFilter,
  type MedicationRequestRow,
} from './medication-request.repository.js';
import {
  MEDICATION_REQUEST_INTENT_SYSTEM,
  MEDICATION_REQUEST_INTENTS,
  MEDICATION_REQUEST_STATUS_SYSTEM,
  MEDICATION_REQUEST_STATUSES,
  medicationRequestStatusOf,
  orderStatusesOf,
} from './medication-request-status.js';
import { FHIR_RESOURCE_SCOPES } from './smart-scopes.js';

/*
 * FHIR MedicationRequest (issue 32; US Core MedicationRequest): one per medication item of an order,
 * its id the item's id, its status the order's (medication-request-status.ts). Read by id and
 * searched by `_id`, `patient`, `intent` and `status` (US Core's SHALL searches: patient+intent,
 * patient+intent+status, _id), with `_include=MedicationRequest:medication`.
 *
 * A page costs two queries (the page, the count), and three more with `_include` (medication-resources.ts).
 */

/** Identifier system of our medication items' ids (MedicationRequest.identifier). */
export const MEDICATION_ITEM_SYSTEM = 'urn:fulfillment:medication-item';
/**
 * Identifier system of our orders' ids (MedicationRequest.groupIdentifier): the items of one order
 * share it, as FHIR's groupIdentifier groups the requests written together.
 */
export const MEDICATION_REQUEST_GROUP_SYSTEM = 'urn:fulfillment:medication-request';

export const MEDICATION_INCLUDE = 'MedicationRequest:medication';

/**
 * Every item is a prescription the patient takes at home (shipped to them): FHIR's `community`
 * category ("to be administered or consumed by the patient in their home"), which US Core asks for.
 */
const COMMUNITY = {
  coding: [
    { system: 'http://terminology.hl7.org/CodeSystem/medicationrequest-category', code: 'community', display: 'Community' },
  ],
  text: 'Community',
};

export const medicationRequestKind: FhirResourceKind<MedicationRequest> = {
  type: 'MedicationRequest',
  scope: FHIR_RESOURCE_SCOPES.MedicationRequest,
  includes: [MEDICATION_INCLUDE],
  searchParams: [
    {
      name: '_id',
      type: 'token',
      documentation: 'The MedicationRequest\u2019s id: a medication item\u2019s id.',
      definition: 'http://hl7.org/fhir/SearchParameter/Resource-id',
    },
    {
      name: 'patient',
      type: 'reference',
      target: 'Patient',
      documentation: 'The patient of the order (Patient/<patient id>).',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-medicationrequest-patient',
    },
    {
      name: 'intent',
      type: 'token',
      codes: MEDICATION_REQUEST_INTENTS,
      documentation: 'Always `order` here: any other intent matches nothing.',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-medicationrequest-intent',
    },
    {
      name: 'status',
      type: 'token',
      codes: MEDICATION_REQUEST_STATUSES,
      documentation:
        'The status mapped from the order\u2019s (active: pending, processing or shipped; on-hold; completed: delivered; cancelled).',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-medicationrequest-status',
    },
  ],

  async read(ctx, clinicId, id) {
    const [row] = await pageMedicationRequests(ctx.db, clinicId, { ids: [id] }, { afterId: null, limit: 1 });
    if (row === undefined) return undefined;
    return { resource: medicationRequestOf(row), audit: [orderRead(row, clinicId)] };
  },

  async search(ctx, clinicId, query, paging) {
    const filter = filterOf(query);
    const [rows, total] = await Promise.all([
      pageMedicationRequests(ctx.db, clinicId, filter, { afterId: paging.afterId, limit: paging.count + 1 }),
      countMedicationRequests(ctx.db, clinicId, filter),
    ]);
    const page = rows.slice(0, paging.count);
    const included = query.include.includes(MEDICATION_INCLUDE) ? await medicationsOf(ctx.db, clinicId, page) : undefined;
    return {
      matches: page.map(medicationRequestOf),
      total,
      hasMore: rows.length > paging.count,
      ...(included === undefined ? {} : { included: included.resources }),
      audit: uniqueReads([...page.map((row) => orderRead(row, clinicId)), ...(included?.audit ?? [])]),
    };
  },
};

/**
 * The search's criteria as a filter: `intent` other than `order` matches nothing (ours are all
 * orders), `status` becomes the order statuses it stands for.
 */
function filterOf(query: SearchQuery): MedicationRequestFilter {
  const intents = tokenCodes(query, 'intent', MEDICATION_REQUEST_INTENT_SYSTEM);
  const statuses = tokenCodes(query, 'status', MEDICATION_REQUEST_STATUS_SYSTEM);
  return {
    ids: tokenCodes(query, '_id'),
    patientIds: referenceIds(query, 'patient'),
    // No item has another intent: no id can match then.
    ...(intents !== undefined && !intents.includes('order') ? { ids: [] } : {}),
    orderStatuses: statuses === undefined ? undefined : orderStatusesOf(statuses),
  };
}

/** The id of the Medication an item refers to: its fill's once filled, else its formulary entry's. */
const medicationIdOf = (row: MedicationRequestRow): string | null => row.fill_id ?? row.entry_id;

/** An item as a MedicationRequest (US Core MedicationRequest's must-supports). */
export function medicationRequestOf(row: MedicationRequestRow): MedicationRequest {
  const medicationId = medicationIdOf(row);
  const medication: Pick<MedicationRequest, 'medicationReference' | 'medicationCodeableConcept'> =
    medicationId === null
      ? { medicationCodeableConcept: { text: `${row.medication} ${row.dose}` } }
      : { medicationReference: { reference: `Medication/${medicationId}`, display: row.medication } };
  const status = medicationRequestStatusOf(row.status);
  const holdReason = status === 'on-hold' ? holdStatusReason(row.hold_reason_code ?? null) : undefined;
  return {
    resourceType: 'MedicationRequest',
    id: row.id,
    identifier: [{ system: MEDICATION_ITEM_SYSTEM, value: row.id }],
    groupIdentifier: { system: MEDICATION_REQUEST_GROUP_SYSTEM, value: row.order_id },
    status,
    ...(holdReason ? { statusReason: holdReason } : {}),
    intent: 'order',
    category: [COMMUNITY],
    // Written by the prescriber and sent to us: a primary record, not one reported by someone else.
    reportedBoolean: false,
    ...medication,
    subject: { reference: `Patient/${row.patient_id}` },
    requester: { reference: `Practitioner/${row.practitioner_id}` },
    authoredOn: row.created_at,
    // A refill's item continues its chain's first prescription, whose refills it uses.
    ...(row.origin_item_id !== row.id ? { priorPrescription: { reference: `MedicationRequest/${row.origin_item_id}` } } : {}),
    dosageInstruction: [{ text: row.direction }],
    dispenseRequest: {
      quantity: quantityOf(row.quantity, row.unit_of_measure),
      // A do-not-refill item authorizes none, whatever its count said (orders/order-core-view.ts itemRefills).
      numberOfRepeatsAllowed: row.do_not_refill === 1 ? 0 : row.refills,
      ...(row.days_supply === null ? {} : { expectedSupplyDuration: daysOf(row.days_supply) }),
    },
  };
}

const orderRead = (row: MedicationRequestRow, clinicId: string): AuditedResource => ({
  type: 'medication_request',
  id: row.order_id,
  clinicId,
});

/** The Medications a page refers to, each once, in the page's order (three queries at most). */
async function medicationsOf(
  db: DbOrTrx,
  clinicId: string,
  rows: readonly MedicationRequestRow[],
): Promise<{ resources: Medication[]; audit: AuditedResource[] }> {
  const loaded = await loadMedications(db, clinicId, {
    entries: rows.flatMap((row) => (row.fill_id === null && row.entry_id !== null ? [row.entry_id] : [])),
    fills: rows.flatMap((row) => (row.fill_id === null ? [] : [row.fill_id])),
  });
  const ids = [...new Set(rows.flatMap((row) => medicationIdOf(row) ?? []))];
  const found = ids.flatMap((id) => loaded.get(id) ?? []);
  return { resources: found.map((each) => each.resource), audit: found.map((each) => each.audit) };
}
