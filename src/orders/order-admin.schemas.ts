import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../http/schemas.js';
import { ORDER_STATUSES } from './order-status.js';
import { OrderView, StatusHistoryEntryFields, StatusSchema } from './order.schemas.js';

export const AdminStatusBody = Type.Object(
  {
    status: StatusSchema,
    tracking_number: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 64,
        pattern: '^[A-Za-z0-9][A-Za-z0-9 -]*$',
        description: 'Required when status is shipped.',
        'x-message': 'must be 5 to 64 letters, digits, spaces or hyphens',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AdminListQuery = Type.Object({
  status: Type.Optional(Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)))),
  clinic_id: Type.Optional(Uuid()),
  medication_request_id: Type.Optional(
    Uuid('One order by its id (a search): the page lists it if it matches the other filters, else nothing.'),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export const AdminOrderSummary = Type.Object(
  {
    medication_request_id: Uuid(),
    clinic_id: Uuid(),
    clinic_name: Type.String(),
    patient_id: Uuid(),
    patient_name: Type.String({ description: 'First, middle (if any) and last name. PHI: the read is audited.' }),
    practitioner_id: Uuid(),
    status: StatusSchema,
    item_count: Type.Integer(),
    carrier_id: Type.String(),
    carrier_name: Type.String(),
    service_id: Type.String(),
    service_name: Type.String(),
    total_cost: Type.Number(),
    tracking_number: Nullable(Type.String()),
    refill_of: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
export type AdminOrderSummaryData = Static<typeof AdminOrderSummary>;

const ShippingAddress = Type.Object(
  {
    address_line_1: Type.String(),
    address_line_2: Nullable(Type.String()),
    city: Type.String(),
    state: Type.String(),
    postal_code: Type.String(),
  },
  { additionalProperties: false },
);

/** What the pharmacy fills and ships: the partner's view of the order, plus who it goes to and its chain. */
export const AdminOrderDetail = Type.Object(
  {
    ...OrderView.properties,
    status_history: Type.Array(
      Type.Object(
        {
          ...StatusHistoryEntryFields,
          actor_id: Nullable(
            Type.String({ description: 'The staff member who made the change (their id); null for anyone else.' }),
          ),
          actor_name: Nullable(
            Type.String({
              description:
                'Who made the change, by name: the staff member, "Operator token" (the shared ADMIN_TOKEN), or the command line’s operator; null for a partner, the sandbox, and changes recorded before names were.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'Every status change, oldest first, each naming who made it (the partner’s view names no one).' },
    ),
    clinic_name: Type.String(),
    patient: Type.Object(
      {
        patient_id: Uuid(),
        first_name: Type.String(),
        middle_name: Nullable(Type.String()),
        last_name: Type.String(),
        shipping_address: Nullable(ShippingAddress),
      },
      {
        additionalProperties: false,
        description: 'Who the order ships to (the patient\u2019s current address). PHI: the read is audited.',
      },
    ),
    refill_chain: Type.Array(
      Type.Object(
        {
          medication_request_id: Uuid(),
          status: StatusSchema,
          refill_of: Nullable(Type.String({ format: 'uuid' })),
          created_at: Timestamp,
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Every order of the refill chain, oldest first: the first order and each refill, this one included (one entry for an order never refilled).',
      },
    ),
  },
  { additionalProperties: false },
);
export type AdminOrderDetailData = Static<typeof AdminOrderDetail>;
