/** One hold of an order (migration 034; docs/orders.md#holds): open until resolved. */
export interface OrderHoldTable {
  id: string;
  medication_request_id: string;
  /** A code of the catalog (hold-reasons.ts). */
  reason_code: string;
  /** partner | pharmacy: whose move it is now (an answer turns a partner's hold to the pharmacy). */
  waiting_on: string;
  /** The pharmacy's message (free text that may hold PHI: never in an event). */
  message: string;
  opened_at: string;
  /** operator | partner | sandbox, as the history names actors. */
  opened_by: string;
  opened_by_id: string | null;
  opened_by_name: string | null;
  /** When the partner last answered while it was open. */
  answered_at: string | null;
  /** Null while the hold is open. */
  resolved_at: string | null;
  /** How it was resolved (HOLD_RESOLUTIONS). */
  resolution: string | null;
  resolved_by: string | null;
  resolved_by_id: string | null;
  resolved_by_name: string | null;
  /** A clinical hold's override: the pharmacist's reason (free text, the rules of notes). */
  override_reason: string | null;
}

export interface HoldTables {
  order_holds: OrderHoldTable;
}
