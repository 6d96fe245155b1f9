import { Type, type Static } from '@sinclair/typebox';
import { Nullable, OpaqueId, StringEnum, Text, textDoc, Timestamp, Uuid } from '../contracts/schemas.js';
import { SHIPMENT_STATUSES } from '../shipping/shipment-status.js';

/* The shipments' contract (docs/shipping.md#shipments-and-their-journey): the pharmacy's and the sandbox's bodies, and an order's packages as partners read them. */

export const ShipmentStatusSchema = StringEnum(
  SHIPMENT_STATUSES,
  'label_created → in_transit → out_for_delivery → delivered; exception and returned_to_sender put a shipped order on hold (`delivery_exception`). The status of the latest event by `occurred_at`.',
);

/** One step of a shipment's journey, as the carrier (or the pharmacy) reported it. */
export const ShipmentEventView = Type.Object(
  {
    status: ShipmentStatusSchema,
    occurred_at: Timestamp,
    location: Nullable(Type.String({ description: 'Where, as the carrier says it (a city, a facility).' })),
    description: Nullable(Type.String({ description: 'The carrier\u2019s words for the event.' })),
  },
  { additionalProperties: false },
);

/** One package of an order (issue 31). */
export const ShipmentView = Type.Object(
  {
    shipment_id: Uuid(),
    carrier_id: Type.String(),
    service_id: Type.String(),
    tracking_number: Type.String(),
    tracking_url: Nullable(
      Type.String({
        format: 'uri',
        description: 'The carrier\u2019s public tracking page (UPS, FedEx, USPS); null for another carrier.',
      }),
    ),
    status: ShipmentStatusSchema,
    estimated_delivery_date: Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD, the carrier\u2019s estimate.' })),
    events: Type.Array(ShipmentEventView, { description: 'The journey, oldest first.' }),
  },
  { $id: 'Shipment', additionalProperties: false },
);
export type ShipmentViewData = Static<typeof ShipmentView>;

/** The shipments' field of the order as partners read it, last (fulfillment/order-view.schemas.ts). */
export const ShipmentViewFields = {
  shipments: Type.Array(ShipmentView, {
    description:
      'The packages of the order, first first, each with its journey (docs/shipping.md#shipments-and-their-journey); empty before shipping. The first one\u2019s tracking number is `tracking_number`. Added in issue 31.',
  }),
};

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

export const ShipmentParams = Type.Object({ id: Uuid(), shipmentId: Uuid() });
