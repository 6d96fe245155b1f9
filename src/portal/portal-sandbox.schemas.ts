import { Type, type Static } from '@sinclair/typebox';
import { ORDER_STATUSES } from '../orders/order-status.js';
import { StatusSchema } from '../orders/order.schemas.js';
import { HoldView } from '../holds/hold.schemas.js';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';

/* The portal's sandbox (development only; docs/portal.md): the clinic's orders and their next states. */

export const PortalSandboxOrder = Type.Object(
  {
    order_id: Uuid('The medication request\u2019s id.'),
    status: StatusSchema,
    patient_id: Uuid(),
    created_at: Timestamp,
    tracking_number: Nullable(Type.String(), { description: 'Filled in when the order is shipped.' }),
    next_statuses: Type.Array(StatusSchema, {
      description: 'The statuses the order may move to directly (empty: a final state).',
    }),
    hold: Nullable(HoldView, { description: 'Why the order is on hold, and whom it waits on; null when it is not.' }),
  },
  { additionalProperties: false },
);
export type PortalSandboxOrderView = Static<typeof PortalSandboxOrder>;

export const PortalSandboxOrderPage = Type.Object(
  {
    items: Type.Array(PortalSandboxOrder),
    next_cursor: Nullable(Type.String(), { description: 'Pass as `cursor` for the next page; null on the last.' }),
  },
  { additionalProperties: false },
);

export const PortalSandboxOrdersQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type PortalSandboxOrdersQuery = Static<typeof PortalSandboxOrdersQuery>;

export const PortalSandboxOrderParams = Type.Object({ orderId: Uuid('The medication request\u2019s id.') });

export const PortalSandboxShipmentParams = Type.Object({
  orderId: Uuid('The medication request\u2019s id.'),
  shipmentId: Uuid('A shipment of the order (its `shipments[].shipment_id`).'),
});

export const PortalSandboxAdvanceBody = Type.Object(
  {
    status: Type.Union(
      ORDER_STATUSES.map((status) => Type.Literal(status)),
      {
        description:
          'The status to reach, through every legal step in between (as the sandbox API\u2019s `to`): `shipped` fills in a test tracking number.',
      },
    ),
  },
  { additionalProperties: false },
);
