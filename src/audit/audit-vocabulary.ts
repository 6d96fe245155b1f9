/**
 * The audit trail's vocabulary (docs/audit.md): a short, closed list of actions and resource types,
 * so that an operator can filter on them and a reviewer can read every row without a legend.
 */
export const AUDIT_ACTIONS = [
  /** A resource was created (a patient, an order, a refill request, a webhook endpoint...). */
  'create',
  /** A resource was returned to the actor (one GET, or one row per resource of a list). */
  'read',
  /** A resource was changed in place (an operator re-enabling a webhook endpoint, a clinic's free shipping, a service's prices). */
  'update',
  /** A partner cancelled an order. */
  'cancel',
  /** A resource was deleted (a webhook endpoint, a medication removed from a formulary). */
  'delete',
  /** A credential was revoked (an API key, an OAuth client). */
  'revoke',
  /** An API key was rolled: the old key now expires (its successor is a `create`). */
  'roll',
  /** An order's status was changed by the operator (or the sandbox, for a partner in development). */
  'transition',
  /** An order was put on hold, or its hold changed (the pharmacy, or the sandbox for a partner in development). */
  'hold',
  /** A partner answered an order's hold. */
  'hold_response',
  /** A pharmacist signed off an order: its prescription's review or its product's check (docs/compounding.md#sign-offs). */
  'sign_off',
  /** An order on hold was resumed, or one of its holds resolved (by the pharmacy, or by a partner's address answer). */
  'resume',
  /** A pharmacist signed in as themselves overrode a clinical hold of an order, with a reason (docs/orders.md#clinical-holds). */
  'override',
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
  /** A person of a clinic with a partner portal account (invited, activated, disabled; second factor on or off). */
  'partner_user',
  /** A clinic (created; its free shipping turned on or off). */
  'clinic',
  /** A partner's API key (issued, rolled, revoked). */
  'api_key',
  /** A partner's OAuth client (created, revoked). */
  'oauth_client',
  /** A medication of a clinic's formulary (added, removed). */
  'medication',
  /** A carrier of the catalogue (added). */
  'carrier',
  /** A carrier's shipping service, as `<carrier id>/<service id>` (added; name or prices changed). */
  'shipping_service',
  /** The states the pharmacy may ship to, as one resource with id `pharmacy` (replaced). */
  'licensed_states',
  /** An allergy class of the pharmacy's, by its code (the operator's row set or removed: docs/compounding.md#allergy-classes). */
  'allergy_class',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/** One resource an action touched: ids only, never PHI. `clinicId` is the resource's clinic (null for a staff account or the carrier catalogue). */
export interface AuditedResource {
  type: AuditResourceType;
  id: string;
  clinicId: string | null;
}
