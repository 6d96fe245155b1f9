/** Row type of the refill requests (migration 002_orders): same conventions as the order tables. */

export interface RefillRequestTable {
  id: string;
  clinic_id: string;
  /** The order the refill was requested of. */
  medication_request_id: string;
  /** The order the refill created. */
  new_medication_request_id: string;
  /** open | fulfilled | cancelled */
  status: string;
  shipment_group_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface RefillTables {
  refill_requests: RefillRequestTable;
}
