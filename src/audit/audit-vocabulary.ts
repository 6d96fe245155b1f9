/**
 * The audit trail's vocabulary (docs/audit.md): a short, closed list of actions and resource types,
 * so that an operator can filter on them and a reviewer can read every row without a legend.
 */
export const AUDIT_ACTIONS = [
  /** A resource was created (a patient, an order, a refill request, a webhook endpoint...). */
  'create',
  /** A resource was returned to the actor (one GET, or one row per resource of a list). */
  'read',
  /** A resource was changed in place (an operator re-enabling a webhook endpoint). */
  'update',
  /** A partner cancelled an order. */
  'cancel',
  /** A resource was deleted (a webhook endpoint). */
  'delete',
  /** An order's status was changed by the operator (or the sandbox, for a partner in development). */
  'transition',
  /** A webhook delivery was queued again by the operator; an endpoint's deliveries were recovered (operator or partner). */
  'retry',
  /** A test event was sent to a webhook endpoint. */
  'test',
  /**
   * A partner asked for another clinic's record (by its id) and was answered 404, as for an unknown
   * id: the row names the record and, in `resource_clinic_id`, its real clinic (audit/denied-access.ts).
   */
  'access_denied',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_RESOURCE_TYPES = [
  'patient',
  'practitioner',
  'medication_request',
  'refill_request',
  'webhook_endpoint',
  'webhook_delivery',
  /** A staff account of the pharmacy (created or disabled by an admin). */
  'staff_member',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/** One resource an action touched: ids only, never PHI. `clinicId` is the resource's clinic (null for a staff account). */
export interface AuditedResource {
  type: AuditResourceType;
  id: string;
  clinicId: string | null;
}
