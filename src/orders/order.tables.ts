/**
 * Row types of the order tables (migration 002_orders). Same conventions as the foundation:
 * text ids, ISO-8601 UTC text timestamps, 0/1 booleans, integer cents.
 */

/** A medication request (the partner's "medication order"): one shipment of one prescription. */
export interface OrderTable {
  id: string;
  clinic_id: string;
  patient_id: string;
  practitioner_id: string;
  /** pending | processing | on_hold | shipped | delivered | cancelled (see order-status.ts). */
  status: string;
  carrier_id: string;
  carrier_name: string;
  service_id: string;
  service_name: string;
  /** The service's price at the time of ordering, for the patient's state. */
  shipping_original_cents: number;
  /** What the clinic pays: 0 with free shipping. */
  shipping_total_cents: number;
  free_shipment_type: string | null;
  is_refrigerated: number;
  /** Delivery options (migration 028; docs/shipping.md#delivery-options): 0/1, as ordered, copied by refills. */
  signature_required: number;
  saturday_delivery: number;
  shipment_group_id: string | null;
  /** The order this one refills (null for an original order). */
  refill_of: string | null;
  /** The first order of the refill chain, whose prescription bounds the chain's refills (null for an original). */
  chain_origin_id: string | null;
  tracking_number: string | null;
  shipped_at: string | null;
  delivered_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
  /** The current hold (migration 021; all null when the order is not on hold): its catalog code (orders/hold-reasons.ts). */
  hold_reason_code?: string | null;
  /** The pharmacy's message to the partner. */
  hold_message?: string | null;
  /** partner | pharmacy: whose move it is. */
  hold_waiting_on?: string | null;
  /** When the current hold began. */
  hold_since?: string | null;
  /** The status a resume returns the order to: pending or processing. */
  held_from?: string | null;
  /** When the partner last answered the current hold. */
  hold_answered_at?: string | null;
  /** The address a partner's answer gave this order (migration 021); null: the patient's address. */
  ship_to_address_line1?: string | null;
  ship_to_address_line2?: string | null;
  ship_to_city?: string | null;
  ship_to_state?: string | null;
  ship_to_postal_code?: string | null;
  /**
   * How many events the order has sent (migration 026): each order event carries the value after its
   * own increment as `sequence` (orders/order-sequence.repository.ts).
   */
  event_sequence?: number;
}

/** The prescription an order fills; a refill writes a new one, linked to the chain's first. */
export interface PrescriptionTable {
  id: string;
  clinic_id: string;
  medication_request_id: string;
  /** The first prescription of the chain (null for an original). */
  original_prescription_id: string | null;
  created_at: string;
}

/** One medication of a prescription. */
export interface MedicationItemTable {
  id: string;
  prescription_id: string;
  position: number;
  /** The item of the chain's first prescription this one copies (its own id for an original). */
  origin_item_id: string;
  /** The formulary entry matched at ordering time (no foreign key: the formulary may change). */
  medication_id: string | null;
  medication: string;
  dose: string;
  unit_of_measure: string | null;
  quantity: number;
  /** Refills this prescription authorizes (original: as ordered; refill: what was left). */
  refills: number;
  /** Origin items only: refills of the chain counted against this item (not cancelled). */
  refills_used: number;
  direction: string;
  days_supply: number | null;
  flavor: string | null;
  notes: string | null;
  do_not_refill: number;
  do_not_fill: number;
  patient_contact_requested: number;
  reason_for_compounding: string | null;
  reason_for_compounding_additional_context: string | null;
  /** Migration 035: the patient's order this item replaces (a titration step, a switch); null for none. */
  replaces_medication_request_id?: string | null;
}

/** Every status change of an order, its creation included (from_status null). */
export interface StatusHistoryTable {
  id: string;
  medication_request_id: string;
  from_status: string | null;
  to_status: string;
  /** operator | partner | sandbox (what the partner sees) */
  actor: string;
  /** Who exactly, for the pharmacy (migration 017): a staff member's id; null otherwise. */
  actor_id: string | null;
  /** A staff member's name, "Operator token", or the command line's operator; null for a partner, the sandbox and older rows. */
  actor_name: string | null;
  at: string;
  /**
   * What the row says of a hold (migration 021): `hold` (the order was put on hold, or its hold
   * changed: from_status may equal to_status), `answer` (the partner's answer: on_hold to on_hold),
   * `resolve` (one of several holds resolved: on_hold to on_hold, migration 034), `resume` (the last
   * hold resolved: the order resumes); null for a plain status move.
   */
  kind?: string | null;
  reason_code?: string | null;
  /** partner | pharmacy after this row. */
  waiting_on?: string | null;
  /** The hold's, the answer's or the resume's message (free text that may hold PHI: never in an event). */
  message?: string | null;
  /** The hold the row is about (migration 034); null for older rows and plain status moves. */
  hold_id?: string | null;
  /** How the row's hold was resolved (`answer`, `resume`, `override`), on `resolve` and `resume` rows. */
  resolution?: string | null;
  /** A clinical hold's override: the pharmacist's reason (the pharmacy's record). */
  override_reason?: string | null;
}

export interface OrderTables {
  medication_requests: OrderTable;
  prescriptions: PrescriptionTable;
  medication_items: MedicationItemTable;
  medication_request_status_history: StatusHistoryTable;
}
