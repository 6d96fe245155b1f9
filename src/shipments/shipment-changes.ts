import type { SystemChange } from '../changes/run-change.js';
import type { Trx } from '../db/database.js';
import { newId } from '../shared/ids.js';
import { bumpOrderSequence } from '../orders/order-sequence.repository.js';
import type { OrderTable } from '../orders/order.tables.js';
import * as shipments from './shipment.repository.js';
import { FIRST_SHIPMENT_STATUS, type ShipmentStatus } from '../shipping/shipment-status.js';
import type { ShipmentEventTable, ShipmentTable } from './shipment.tables.js';
import { trackingUrl } from './tracking-url.js';

/*
 * The steps of a change that touch shipments, for the order's moves (orders/order-transition.ts)
 * (through fulfillment/order-move.ts) and the journey (shipment-journey.ts). docs/shipping.md#shipments-and-their-journey.
 */

/**
 * A new shipment of `order` with `trackingNumber`, in `FIRST_SHIPMENT_STATUS` (`in_transit`: the
 * package has left the pharmacy) from `now`, with the journey's first event saying so. Written at
 * once: a later step of the same change (the sandbox's advance to delivered) reads it. Returns the row.
 */
export async function addShipment(
  trx: Trx,
  now: string,
  order: Pick<OrderTable, 'id' | 'clinic_id'>,
  carrierId: string,
  serviceId: string,
  trackingNumber: string,
): Promise<ShipmentTable> {
  const row: ShipmentTable = {
    id: newId(),
    medication_request_id: order.id,
    clinic_id: order.clinic_id,
    carrier_id: carrierId,
    service_id: serviceId,
    tracking_number: trackingNumber,
    status: FIRST_SHIPMENT_STATUS,
    status_at: now,
    estimated_delivery_date: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  };
  await shipments.insertShipment(trx, row);
  await shipments.insertNewEvents(trx, [eventRow(row.id, FIRST_SHIPMENT_STATUS, now, now)]);
  return row;
}

export const eventRow = (
  shipmentId: string,
  status: ShipmentStatus,
  occurredAt: string,
  now: string,
  location: string | null = null,
  description: string | null = null,
): ShipmentEventTable => ({
  id: newId(),
  shipment_id: shipmentId,
  status,
  occurred_at: occurredAt,
  location,
  description,
  created_at: now,
});

/**
 * `shipment.updated` for a shipment whose status changed: ids, status, the tracking number and page,
 * the estimate and the order's next `sequence`; never an event's location or description.
 */
export async function shipmentUpdated(
  change: SystemChange,
  trx: Trx,
  at: string,
  order: Pick<OrderTable, 'id' | 'clinic_id' | 'carrier_name'>,
  shipment: ShipmentTable,
): Promise<void> {
  const sequence = await bumpOrderSequence(trx, order.id);
  change.event(
    {
      clinicId: order.clinic_id,
      type: 'shipment.updated',
      payload: {
        medication_request_id: order.id,
        shipment_id: shipment.id,
        status: shipment.status,
        tracking_number: shipment.tracking_number,
        tracking_url: trackingUrlOf(shipment, order.carrier_name),
        estimated_delivery_date: shipment.estimated_delivery_date,
        sequence,
      },
    },
    at,
  );
}

/** The tracking page of a shipment: its carrier's; the order's carrier name helps recognise it. */
export const trackingUrlOf = (
  shipment: Pick<ShipmentTable, 'carrier_id' | 'tracking_number'>,
  carrierName: string,
): string | null => trackingUrl(shipment.carrier_id, carrierName, shipment.tracking_number);

/**
 * An order moved to `delivered` by a status change (the operator's, the sandbox's): its shipments
 * not yet delivered are delivered at `now` (or their latest event's time, if later), each with the event and `shipment.updated`, so that the
 * journey agrees with the order.
 */
export async function deliverRemainingShipments(change: SystemChange, trx: Trx, now: string, order: OrderTable): Promise<void> {
  for (const shipment of await shipments.listShipmentsOfOrder(trx, order.id)) {
    if (shipment.status === 'delivered') continue;
    // Never before the journey's latest event (a carrier's clock may run ahead of ours).
    const at = shipment.status_at !== null && shipment.status_at > now ? shipment.status_at : now;
    await shipments.insertNewEvents(trx, [eventRow(shipment.id, 'delivered', at, now)]);
    const set = { status: 'delivered', status_at: at, delivered_at: at, updated_at: now } as const;
    await shipments.updateShipment(trx, shipment.id, set);
    await shipmentUpdated(change, trx, now, order, { ...shipment, ...set });
  }
}
