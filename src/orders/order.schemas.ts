// Over 250 lines: the order's request body in one schema (every item field with its wire rule and documentation), which validates, serializes and documents the partner's POST; split, the item's fields would leave the body they document.
import { Type, type Static } from '@sinclair/typebox';
import { NameText, Nullable, OpaqueId, Text, textDoc, Timestamp, Uuid } from '../contracts/schemas.js';
import { ACTORS, ORDER_STATUSES } from './order-status.js';

/*
 * The order's own contract: the bodies that create and move an order, and the fields of its read
 * that the order's core holds. The read partners get (MedicationOrder) adds each room's fields to
 * these: fulfillment/order-view.schemas.ts.
 */

/** Limits the spec leaves open (documented in docs/orders.md). */
export const ORDER_LIMITS = {
  maxItems: 20,
  medication: 200,
  dose: 100,
  unitOfMeasure: 30,
  direction: 1000,
  flavor: 100,
  notes: 2000,
  reason: 500,
  reasonContext: 2000,
  shipmentGroupId: 100,
  minQuantity: 0.001,
  maxQuantity: 100_000,
  quantityDecimalPlaces: 3,
  maxDaysSupply: 365,
  maxRefills: 99,
} as const;

/** Optional free text: blank is treated as absent. */
export const OptionalText = (max: number, description?: string) =>
  Type.Optional(Type.String({ maxLength: max, ...(description ? { description } : {}) }));

/** Free text a prescriber writes over several lines: tabs and line breaks allowed (contracts/validation.ts). */
const OptionalFreeText = (max: number) =>
  Type.Optional(Type.String({ maxLength: max, 'x-free-text': true, description: textDoc('free') }));

export const StatusSchema = Type.Union(
  ORDER_STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      'pending → processing → shipped → delivered; pending or processing → cancelled; pending or processing → on_hold (the pharmacy stopped it: see `hold`) → back where it was, or cancelled.',
  },
);

export const MedicationItemBody = Type.Object(
  {
    medication: NameText(ORDER_LIMITS.medication, {
      description: 'Name of a medication in the clinic\u2019s formulary (case and surrounding spaces are ignored).',
    }),
    dose: Text(ORDER_LIMITS.dose, { description: 'e.g. `10mg`, `0.5 mL`, `1 tablet`.' }),
    unit_of_measure: Type.Optional(
      Text(ORDER_LIMITS.unitOfMeasure, {
        description:
          'What `quantity` counts (`mL`, `capsule`, `vial`). When omitted, the formulary entry\u2019s `dispense_unit`, or `each` for an entry without one; never derived from `dose` (a deliberate deviation from the spec: a dose\u2019s unit misstates the amount dispensed; docs/compounding.md#quantities-and-their-unit).',
      }),
    ),
    quantity: Type.Number({
      minimum: ORDER_LIMITS.minQuantity,
      maximum: ORDER_LIMITS.maxQuantity,
      'x-decimal-places': ORDER_LIMITS.quantityDecimalPlaces,
      description: `How much to dispense, in \`unit_of_measure\`: a JSON number from ${ORDER_LIMITS.minQuantity} to ${ORDER_LIMITS.maxQuantity} with at most ${ORDER_LIMITS.quantityDecimalPlaces} decimal places (\`2.5\` mL, \`0.125\` g; \`1.0005\` and \`5e-324\` are refused).`,
      'x-message': `must be a number from ${ORDER_LIMITS.minQuantity} to ${ORDER_LIMITS.maxQuantity} with at most ${ORDER_LIMITS.quantityDecimalPlaces} decimal places`,
    }),
    refills: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,2}$',
        description: 'Refills authorized, a whole number from 0 to 99 written as a string. Default "0".',
        'x-message': 'must be a whole number of refills from 0 to 99, written as a string (e.g. "3")',
      }),
    ),
    direction: Text(ORDER_LIMITS.direction, { description: textDoc('free', 'Directions for use.'), 'x-free-text': true }),
    days_supply: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: ORDER_LIMITS.maxDaysSupply,
        description: `Days the quantity lasts: a whole number from 1 to ${ORDER_LIMITS.maxDaysSupply} (\`30\`; \`30.0\` is the same number).`,
        'x-message': `must be a whole number of days from 1 to ${ORDER_LIMITS.maxDaysSupply}`,
      }),
    ),
    flavor: OptionalText(ORDER_LIMITS.flavor),
    notes: OptionalFreeText(ORDER_LIMITS.notes),
    do_not_refill: Type.Optional(Type.Boolean({ description: 'This item is never refilled.' })),
    do_not_fill: Type.Optional(Type.Boolean()),
    patient_contact_requested: Type.Optional(Type.Boolean()),
    reason_for_compounding: OptionalFreeText(ORDER_LIMITS.reason),
    reason_for_compounding_additional_context: OptionalFreeText(ORDER_LIMITS.reasonContext),
    replaces_medication_request_id: Type.Optional(
      Uuid(
        'The patient\u2019s order this item replaces: a titration step, or a switch of drug in the same therapeutic class. The new order is not duplicate therapy of it; the replaced order, if it has not shipped, is cancelled in the same transaction (`order.cancelled`), its history naming its replacement. An order that is not this patient\u2019s in your clinic is a 400, a delivered or cancelled one a 409, each naming this field (docs/compounding.md#replacing-an-order).',
      ),
    ),
  },
  {
    additionalProperties: false,
    'x-aliases': { name: 'medication', directions: 'direction', uom: 'unit_of_measure', unit: 'unit_of_measure' },
  },
);
export type MedicationItemInput = Static<typeof MedicationItemBody>;

export const CreateOrderBody = Type.Object(
  {
    patient_id: Uuid('An existing patient of the clinic.'),
    practitioner_id: Uuid('An existing practitioner of the clinic.'),
    clinic_id: Uuid('The API key\u2019s clinic.'),
    carrier_id: OpaqueId('An id from GET /api/external/carriers.'),
    service_id: OpaqueId('An id from GET /api/external/carriers/{carrierId}/services.'),
    is_refrigerated: Type.Optional(
      Type.Boolean({
        description:
          'The order ships cold. On a service that is not `cold_chain_eligible` (GET /api/external/carriers/{carrierId}/services) it is accepted with a warning in `warnings`, or refused when the pharmacy refuses those (docs/shipping.md#cold-chain).',
      }),
    ),
    signature_required: Type.Optional(
      Type.Boolean({ description: 'Delivery option: the carrier obtains a signature on delivery. Default false.' }),
    ),
    saturday_delivery: Type.Optional(
      Type.Boolean({ description: 'Delivery option: the parcel may be delivered on a Saturday. Default false.' }),
    ),
    shipment_group_id: OptionalText(ORDER_LIMITS.shipmentGroupId, 'Groups shipments.'),
    medication_requests: Type.Array(MedicationItemBody, { minItems: 1, maxItems: ORDER_LIMITS.maxItems }),
  },
  {
    $id: 'MedicationOrderCreateRequest',
    additionalProperties: false,
    'x-aliases': { medications: 'medication_requests', items: 'medication_requests', assigned_clinic: 'clinic_id' },
  },
);
export type CreateOrderInput = Static<typeof CreateOrderBody>;

export const CreateOrderData = Type.Object(
  {
    medication_request_id: Uuid(),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'What the order was accepted despite, in words (a refrigerated order on a service that is not cold-chain eligible: docs/shipping.md#cold-chain). Absent when there is none; only in this answer, never in the order\u2019s reads.',
      }),
    ),
  },
  { $id: 'MedicationOrderCreated', additionalProperties: false },
);

export const IdParams = Type.Object({ id: Uuid() });

/** The fields of an item of the order as partners read it; the read adds the item's `fill` (compounding). */
export const MedicationItemViewFields = {
  id: Uuid('The medication item: what a fill names (`POST /api/admin/medication-requests/{id}/fill`, `item_id`).'),
  medication: Type.String(),
  dose: Type.String(),
  unit_of_measure: Nullable(
    Type.String({
      description:
        'What `quantity` counts: the partner\u2019s unit, else the formulary entry\u2019s `dispense_unit` (`each` when it sets none). Null only for an item stored without one before this rule whose entry sets no unit (migration 036 gave the others their entry\u2019s unit).',
    }),
  ),
  quantity: Type.Number({ description: 'How much is dispensed, in `unit_of_measure`.' }),
  refills: Type.String({
    description: 'Refills this prescription authorized, as ordered (a refill\u2019s prescription carries what was left).',
  }),
  direction: Type.String(),
  days_supply: Nullable(Type.Integer()),
  flavor: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  do_not_refill: Type.Boolean(),
  do_not_fill: Type.Boolean(),
  patient_contact_requested: Type.Boolean(),
  reason_for_compounding: Nullable(Type.String()),
  reason_for_compounding_additional_context: Nullable(Type.String()),
  refills_authorized: Type.Integer({
    description: 'Refills the chain\u2019s first prescription authorized for this medication.',
  }),
  refills_used: Type.Integer(),
  refills_remaining: Type.Integer(),
};

/** One status change as a partner sees it (the operator's view adds who, by name: fulfillment/order-operator.schemas.ts). */
export const StatusHistoryEntryFields = {
  from: Nullable(Type.String()),
  to: Type.String(),
  at: Timestamp,
  actor: Type.Union(ACTORS.map((a) => Type.Literal(a))),
};

/**
 * The fields of the order as partners read it that the core holds, in the read's order. The read
 * (fulfillment/order-view.schemas.ts) gives `medication_requests` its items with their fill, and
 * adds the holds' fields and the shipments after `status_history`.
 */
export const OrderCoreViewFields = {
  medication_request_id: Uuid(),
  clinic_id: Uuid(),
  patient_id: Uuid(),
  practitioner_id: Uuid(),
  status: StatusSchema,
  prescription_id: Uuid(),
  is_refrigerated: Type.Boolean(),
  signature_required: Type.Boolean({ description: 'Delivery option: a signature is obtained on delivery.' }),
  saturday_delivery: Type.Boolean({ description: 'Delivery option: the parcel may be delivered on a Saturday.' }),
  shipment_group_id: Nullable(Type.String()),
  medication_requests: Type.Array(Type.Object(MedicationItemViewFields, { additionalProperties: false })),
  refills: Type.Object(
    {
      authorized: Type.Integer(),
      used: Type.Integer(),
      remaining: Type.Integer({ description: 'A refill may be requested while this is above 0.' }),
    },
    { additionalProperties: false },
  ),
  shipping: Type.Object(
    {
      carrier_id: Type.String(),
      carrier_name: Type.String(),
      service_id: Type.String(),
      service_name: Type.String(),
      original_cost: Type.Number({
        description: 'US dollars (0 to 100000, at most two decimals), the service\u2019s price when ordered.',
      }),
      total_cost: Type.Number({ description: 'US dollars charged (at most two decimals); 0 with free shipping.' }),
      is_free_shipment: Type.Boolean(),
      free_shipment_type: Nullable(Type.String()),
    },
    { additionalProperties: false },
  ),
  tracking_number: Nullable(Type.String()),
  shipped_at: Nullable(Timestamp),
  delivered_at: Nullable(Timestamp),
  cancelled_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  refill_of: Nullable(Type.String({ format: 'uuid', description: 'The medication request this one refills.' })),
  chain_origin_id: Nullable(Type.String({ format: 'uuid', description: 'The first medication request of the refill chain.' })),
  refill_request_id: Nullable(Type.String({ format: 'uuid', description: 'The refill request that created this one.' })),
  status_history: Type.Array(Type.Object(StatusHistoryEntryFields, { additionalProperties: false }), {
    description: 'Every status change, oldest first (a state may be entered again after a hold).',
  }),
};

/** The order's core fields as the core reads them (orders/order-core-view.ts). */
export const OrderCoreView = Type.Object(OrderCoreViewFields, { additionalProperties: false });
export type OrderCoreViewData = Static<typeof OrderCoreView>;

/** Sandbox: the optional target of an advance. */
export const AdvanceBody = Type.Object(
  {
    to: Type.Optional(
      Type.Union(
        ORDER_STATUSES.map((s) => Type.Literal(s)),
        {
          description: 'Target status, reached through the legal path; default: the next status.',
        },
      ),
    ),
  },
  { $id: 'MedicationOrderAdvanceRequest', additionalProperties: false },
);
