import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Text, textDoc, Timestamp, Uuid } from '../contracts/schemas.js';
import { ORDER_STATUSES } from '../orders/order-status.js';
import { StatusSchema } from '../orders/order.schemas.js';
import { WaitingOnSchema } from '../holds/hold.schemas.js';

/* The operator's queue of orders and its status change (the order in full: order-operator-detail.schemas.ts). */

/** The longest cancellation reason. */
export const CANCEL_REASON_MAX_LENGTH = 500;

export const OperatorStatusBody = Type.Object(
  {
    status: StatusSchema,
    tracking_number: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 64,
        pattern: '^[A-Za-z0-9][A-Za-z0-9 -]*$',
        description:
          'Required when status is shipped, in the format of the order’s carrier (UPS: 1Z and 16 letters or digits; USPS: 20 to 22 digits, or 2 letters, 9 digits and 2 letters; FedEx: 12, 15, 20 or 22 digits; spaces and hyphens ignored).',
        'x-message': 'must be 5 to 64 letters, digits, spaces or hyphens',
        examples: ['1Z999AA10123456784'],
      }),
    ),
    reason: Type.Optional(
      Text(CANCEL_REASON_MAX_LENGTH, {
        description: textDoc(
          'free',
          `Why the order is cancelled (1 to ${CANCEL_REASON_MAX_LENGTH} characters): kept in the order’s history for the pharmacy, never sent to the partner nor in an event. Only with status cancelled; the console always asks for one.`,
        ),
        'x-free-text': true,
      }),
    ),
  },
  { additionalProperties: false },
);

/** Longest search accepted (`q`), and most words in it. */
export const QUEUE_SEARCH_MAX_LENGTH = 100;
export const QUEUE_SEARCH_MAX_WORDS = 6;
export const QUEUE_SORTS = ['waiting', 'newest'] as const;

const CalendarDate = (description: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    description,
    'x-message': 'must be a date as YYYY-MM-DD',
    examples: ['2026-11-25'],
  });

export const OperatorListQuery = Type.Object({
  status: Type.Optional(Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)))),
  clinic_id: Type.Optional(Uuid()),
  carrier_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Orders shipping with this carrier.' })),
  created_from: Type.Optional(
    CalendarDate('Orders created on this day or later (the pharmacy\u2019s calendar: PHARMACY_TIME_ZONE).'),
  ),
  created_to: Type.Optional(
    CalendarDate('Orders created on this day or earlier (the pharmacy\u2019s calendar: PHARMACY_TIME_ZONE).'),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: QUEUE_SEARCH_MAX_LENGTH,
      description: `A search: every word (at most ${QUEUE_SEARCH_MAX_WORDS}) must appear in the patient\u2019s name, the prescriber\u2019s name, the order id (any part of it, such as its first 8 characters) or the tracking number; A-Z match in either case, other letters as written.`,
      examples: ['hopper', '3f2a9c1e'],
    }),
  ),
  medication_request_id: Type.Optional(
    Uuid('One order by its id (a search): the page lists it if it matches the other filters, else nothing.'),
  ),
  sort: Type.Optional(
    Type.Union(
      QUEUE_SORTS.map((s) => Type.Literal(s)),
      {
        default: 'waiting',
        description:
          '`waiting` (the default): the orders still to work (pending, processing, on_hold) oldest first, then the others newest first; `newest`: every order newest first.',
      },
    ),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

const QueueMedication = Type.Object(
  {
    medication: Type.String(),
    dose: Type.String(),
    unit_of_measure: Nullable(Type.String()),
    quantity: Type.Number(),
  },
  { additionalProperties: false },
);

export const OperatorOrderSummary = Type.Object(
  {
    medication_request_id: Uuid(),
    clinic_id: Uuid(),
    clinic_name: Type.String(),
    patient_id: Uuid(),
    patient_name: Type.String({ description: 'First, middle (if any) and last name. PHI: the read is audited.' }),
    patient_dob: Type.String({ format: 'date', description: 'The patient\u2019s date of birth. PHI: the read is audited.' }),
    practitioner_id: Uuid(),
    practitioner_name: Type.String({ description: 'The prescriber: first and last name.' }),
    practitioner_npi: Type.String(),
    practitioner_is_veterinarian: Type.Boolean(),
    status: StatusSchema,
    item_count: Type.Integer(),
    medications: Type.Array(QueueMedication, { description: 'What the order holds, in the order\u2019s order.' }),
    age_business_hours: Type.Number({
      description:
        'Working hours (Monday to Friday, 09:00-17:00 in PHARMACY_TIME_ZONE) from the order\u2019s creation until it was shipped or cancelled, or until now while it is pending, processing or on hold; rounded down to a tenth.',
    }),
    carrier_id: Type.String(),
    carrier_name: Type.String(),
    service_id: Type.String(),
    service_name: Type.String(),
    total_cost: Type.Number(),
    tracking_number: Nullable(Type.String()),
    refill_of: Nullable(Type.String()),
    is_refrigerated: Type.Boolean({ description: 'The order ships cold.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    hold: Nullable(
      Type.Object(
        {
          reason_code: Type.String(),
          reason: Type.String(),
          waiting_on: WaitingOnSchema,
          since: Timestamp,
        },
        { additionalProperties: false },
      ),
      { description: 'Why an order on hold is held and whose move it is; null when it is not on hold.' },
    ),
  },
  { additionalProperties: false },
);
export type OperatorOrderSummaryData = Static<typeof OperatorOrderSummary>;
