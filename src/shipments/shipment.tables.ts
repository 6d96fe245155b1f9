/**
 * Row types of the shipments tables (migration 027_shipments; docs/shipping.md#shipments-and-their-journey).
 * Same conventions as the other tables: text ids, ISO-8601 UTC text timestamps.
 */

/** One package of an order, with the carrier's tracking number. */
export interface ShipmentTable {
  id: string;
  medication_request_id: string;
  clinic_id: string;
  carrier_id: string;
  service_id: string;
  tracking_number: string;
  /** label_created | in_transit | out_for_delivery | delivered | exception | returned_to_sender (shipping/shipment-status.ts). */
  status: string;
  /** When the event that set `status` happened (its occurred_at); null for a backfilled shipment with no event. */
  status_at: string | null;
  /** YYYY-MM-DD, the carrier's estimate; null when none was given. */
  estimated_delivery_date: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One step of a shipment's journey, as the carrier (or the operator) reported it. */
export interface ShipmentEventTable {
  id: string;
  shipment_id: string;
  status: string;
  occurred_at: string;
  location: string | null;
  description: string | null;
  created_at: string;
}

export interface ShipmentTables {
  shipments: ShipmentTable;
  shipment_events: ShipmentEventTable;
}
