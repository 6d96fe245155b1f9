import type { CodeableConcept } from '@medplum/fhirtypes';
import { holdReasonOf } from '../holds/hold-reasons.js';

/** The code system of our hold reasons (GET /api/external/hold-reasons, docs/orders.md). */
export const HOLD_REASON_SYSTEM = 'urn:fulfillment:hold-reason';

/**
 * Why an order is on hold, as FHIR's `statusReason`: the catalog's code and text, never the
 * pharmacy's free-text message (which may hold PHI, and is the partner API's to show). Undefined for
 * an unknown code.
 */
export function holdStatusReason(code: string | null): CodeableConcept | undefined {
  const reason = code === null ? undefined : holdReasonOf(code);
  if (reason === undefined) return undefined;
  return { coding: [{ system: HOLD_REASON_SYSTEM, code: reason.code, display: reason.reason }], text: reason.reason };
}
