/**
 * An order's shipments as the partner read, the operator read and the portal read answer them
 * (issue 31), read from the generated types: a field the API renames does not compile.
 */
import type { OperatorBody, OperatorData } from '../api-types';

/** One package of an order: its carrier, tracking number and page, status, ETA and tracking events. */
export type Shipment = OperatorData<'getOperatorMedicationRequest'>['shipments'][number];
export type ShipmentStatus = Shipment['status'];
export type ShipmentEvent = Shipment['events'][number];

/** A tracking event's body, as the operator's (and the portal sandbox's) route takes it. */
export type TrackingEventBody = OperatorBody<'recordOperatorShipmentEvent'>;
