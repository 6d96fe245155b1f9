/**
 * A shipment's status (issue 31, item 1; docs/shipping.md#shipments-and-their-journey): where one
 * package of an order is. A shipment's status is that of its latest tracking event by the time the
 * carrier reports it happened; `delivered` is final.
 */
export const SHIPMENT_STATUSES = [
  'label_created',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'exception',
  'returned_to_sender',
] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

/** The statuses that put a shipped order on hold with `delivery_exception`, waiting on the partner. */
export const EXCEPTION_STATUSES: ReadonlySet<ShipmentStatus> = new Set<ShipmentStatus>(['exception', 'returned_to_sender']);

/** The status of a shipment created when its order is marked shipped (or added by the operator). */
export const FIRST_SHIPMENT_STATUS: ShipmentStatus = 'in_transit';
