import { Type, type Static } from '@sinclair/typebox';
import { OpaqueId, Text, textDoc, Uuid } from '../contracts/schemas.js';
import { ShipmentStatusSchema } from '../orders/order.schemas.js';

/** Limits of a tracking event's texts (docs/shipping.md#shipments-and-their-journey). */
export const SHIPMENT_EVENT_LIMITS = { location: 200, description: 500 } as const;

/** `POST /api/admin/medication-requests/{id}/shipments`: another package of a shipped order. */
export const AddShipmentBody = Type.Object(
  {
    tracking_number: Type.String({
      minLength: 5,
      maxLength: 64,
      pattern: '^[A-Za-z0-9][A-Za-z0-9 -]*$',
      description:
        'In the format of the carrier (UPS: 1Z and 16 letters or digits; USPS: 20 to 22 digits, or 2 letters, 9 digits and 2 letters; FedEx: 12, 15, 20 or 22 digits; spaces and hyphens ignored).',
    }),
    carrier_id: Type.Optional(OpaqueId('Default: the order\u2019s carrier. With another carrier, `service_id` is required.')),
    service_id: Type.Optional(OpaqueId('Default: the order\u2019s service (when the carrier is the order\u2019s).')),
  },
  { $id: 'AddShipmentRequest', additionalProperties: false },
);
export type AddShipmentBodyInput = Static<typeof AddShipmentBody>;

/** One tracking event of a shipment, from the pharmacy (or the sandbox). */
export const ShipmentEventBody = Type.Object(
  {
    status: ShipmentStatusSchema,
    occurred_at: Type.String({
      format: 'date-time',
      description: 'When it happened, ISO-8601 with an offset; at most 5 minutes ahead of the server\u2019s clock.',
    }),
    location: Type.Optional(
      Text(SHIPMENT_EVENT_LIMITS.location, {
        description: textDoc('plain', 'Where, as the carrier says it. At most 200 characters.'),
      }),
    ),
    description: Type.Optional(
      Text(SHIPMENT_EVENT_LIMITS.description, {
        description: textDoc('plain', 'The carrier\u2019s words for the event. At most 500 characters.'),
      }),
    ),
    estimated_delivery_date: Type.Optional(
      Type.String({ format: 'date', description: 'YYYY-MM-DD, the carrier\u2019s new estimate.' }),
    ),
  },
  { $id: 'ShipmentEventRequest', additionalProperties: false },
);
export type ShipmentEventBodyInput = Static<typeof ShipmentEventBody>;

export const ShipmentParams = Type.Object({ id: Uuid(), shipmentId: Uuid() });
