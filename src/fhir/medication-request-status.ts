import type { MedicationRequest } from '@medplum/fhirtypes';
import { ORDER_STATUSES, type OrderStatus } from '../orders/order-status.js';

/*
 * How our order statuses read as FHIR MedicationRequest statuses (issue 32, "Status mapping";
 * docs/fhir.md). Every medication item of an order takes the ORDER's status: the prescription stays
 * `active` while the pharmacy works on it and after it ships (the patient may still be waiting for
 * it), `completed` once delivered. Pure: the search runs it backwards (`status=active` finds orders
 * that are pending, processing or shipped).
 *
 * @see http://hl7.org/fhir/R4/valueset-medicationrequest-status.html
 * @see http://hl7.org/fhir/R4/valueset-medicationrequest-intent.html
 */

export type MedicationRequestStatus = MedicationRequest['status'];
export type MedicationRequestIntent = MedicationRequest['intent'];

/** The status of every MedicationRequest of an order in each of our statuses. */
export const MEDICATION_REQUEST_STATUS_OF: Readonly<Record<OrderStatus, MedicationRequestStatus>> = Object.freeze({
  pending: 'active',
  processing: 'active',
  on_hold: 'on-hold',
  shipped: 'active',
  delivered: 'completed',
  cancelled: 'cancelled',
});

/** FHIR's medicationrequest-status codes: all of them are valid in a search, some match nothing of ours. */
export const MEDICATION_REQUEST_STATUSES: readonly MedicationRequestStatus[] = [
  'active',
  'on-hold',
  'cancelled',
  'completed',
  'entered-in-error',
  'stopped',
  'draft',
  'unknown',
];

/** FHIR's medicationrequest-intent codes; ours are all `order` (a signed prescription to fill). */
export const MEDICATION_REQUEST_INTENTS: readonly MedicationRequestIntent[] = [
  'proposal',
  'plan',
  'order',
  'original-order',
  'reflex-order',
  'filler-order',
  'instance-order',
  'option',
];

/** The code systems of the two value sets, for a token search given as `system|code`. */
export const MEDICATION_REQUEST_STATUS_SYSTEM = 'http://hl7.org/fhir/CodeSystem/medicationrequest-status';
export const MEDICATION_REQUEST_INTENT_SYSTEM = 'http://hl7.org/fhir/CodeSystem/medicationrequest-intent';

/** A stored order status as a MedicationRequest status (`unknown` for a value we do not know, which a migration would have to add). */
export function medicationRequestStatusOf(orderStatus: string): MedicationRequestStatus {
  return (ORDER_STATUSES as readonly string[]).includes(orderStatus)
    ? MEDICATION_REQUEST_STATUS_OF[orderStatus as OrderStatus]
    : 'unknown';
}

/** Our order statuses whose MedicationRequests have one of `statuses` (none: `stopped`, `draft`...). */
export function orderStatusesOf(statuses: readonly string[]): OrderStatus[] {
  return ORDER_STATUSES.filter((status) => statuses.includes(MEDICATION_REQUEST_STATUS_OF[status]));
}
