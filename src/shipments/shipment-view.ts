import type { ShipmentStatus } from '../shipping/shipment-status.js';
import type { ShipmentWithEvents } from './shipment.repository.js';
import type { ShipmentViewData } from './shipment.schemas.js';
import { trackingUrlOf } from './shipment-changes.js';

/** An order's packages as partners read them (assembled with the others in fulfillment/order-view.ts). */
export function shipmentViews(shipments: readonly ShipmentWithEvents[], carrierName: string): ShipmentViewData[] {
  return shipments.map(({ shipment, events }) => ({
    shipment_id: shipment.id,
    carrier_id: shipment.carrier_id,
    service_id: shipment.service_id,
    tracking_number: shipment.tracking_number,
    tracking_url: trackingUrlOf(shipment, carrierName),
    status: shipment.status as ShipmentStatus,
    estimated_delivery_date: shipment.estimated_delivery_date,
    events: events.map((e) => ({
      status: e.status as ShipmentStatus,
      occurred_at: e.occurred_at,
      location: e.location,
      description: e.description,
    })),
  }));
}
