import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { OptionalText, ORDER_LIMITS, StatusSchema } from '../orders/order.schemas.js';

export const RefillBody = Type.Object(
  {
    medication_request_id: Uuid('A shipped or delivered medication request of the clinic (an original or a refill).'),
    shipment_group_id: OptionalText(ORDER_LIMITS.shipmentGroupId, 'Groups several refills.'),
  },
  {
    $id: 'RefillRequestCreateRequest',
    additionalProperties: false,
    'x-aliases': {
      clinic_id: 'nothing: a refill belongs to the clinic of its medication request',
      shipping_address: 'nothing: a refill ships to the patient\u2019s address on file',
    },
  },
);
export type RefillInput = Static<typeof RefillBody>;

export const RefillData = Type.Object(
  { refill_request_id: Uuid(), medication_order_id: Uuid('The new medication request.') },
  { $id: 'RefillRequestCreated', additionalProperties: false },
);

export const RefillRequestView = Type.Object(
  {
    refill_request_id: Uuid(),
    status: Type.Union([Type.Literal('open'), Type.Literal('fulfilled'), Type.Literal('cancelled')], {
      description: 'open until its order ships (fulfilled) or is cancelled (cancelled).',
    }),
    medication_request_id: Uuid('The medication request the refill was requested of.'),
    medication_order_id: Uuid('The new medication request the refill created.'),
    medication_order_status: StatusSchema,
    shipment_group_id: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'RefillRequest', additionalProperties: false },
);
export type RefillRequestViewData = Static<typeof RefillRequestView>;
