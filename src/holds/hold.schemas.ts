import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Nullable, StringEnum, Text, textDoc, Timestamp } from '../contracts/schemas.js';
import { Address } from '../patients/patient.schemas.js';
import { ACTORS } from '../orders/order-status.js';
import { HOLD_REASON_CODES, WAITING_ON } from './hold-reasons.js';

/* A hold's contract (docs/orders.md#holds): the bodies that place, answer and resume one, and the order's hold as partners read it. */

export const HoldReasonCodeSchema = StringEnum(
  HOLD_REASON_CODES,
  'A code of the hold reasons catalog (`GET /api/external/hold-reasons`).',
);
export const WaitingOnSchema = StringEnum(
  WAITING_ON,
  '`partner`: the pharmacy waits for your answer (`POST /api/external/medication-order/{id}/hold-response`); `pharmacy`: the pharmacy is working on it.',
);

/** Limits of a hold's texts (docs/orders.md#holds). */
export const HOLD_LIMITS = { message: 2000 } as const;

/** A hold's, an answer's or a resume's message: free text over several lines, the rules of notes. */
export const HoldMessage = (description: string) =>
  Text(HOLD_LIMITS.message, { description: textDoc('free', description), 'x-free-text': true });

/** The current hold of an order, as a partner reads it. */
export const HoldView = Type.Object(
  {
    reason_code: Type.String({ description: 'A code of `GET /api/external/hold-reasons`.' }),
    reason: Type.String({ description: 'The catalog\u2019s text for the code.' }),
    message: Type.String({ description: 'The pharmacy\u2019s message to you.' }),
    waiting_on: WaitingOnSchema,
    since: Timestamp,
  },
  { $id: 'MedicationOrderHold', additionalProperties: false },
);

/** One step of a hold's conversation (the partner's view; the operator's adds who by name). */
export const HoldHistoryEntryFields = {
  kind: Type.Union([Type.Literal('hold'), Type.Literal('answer'), Type.Literal('resume')], {
    description: '`hold`: put on hold, or its hold changed; `answer`: your answer; `resume`: resumed.',
  }),
  reason_code: Nullable(Type.String()),
  waiting_on: Nullable(WaitingOnSchema),
  message: Nullable(Type.String()),
  actor: Type.Union(ACTORS.map((a) => Type.Literal(a))),
  at: Timestamp,
};

/** The address a hold answer gave an order, in the patient's shape. */
export const OrderShippingAddress = Type.Object(
  {
    addressLine1: Type.String(),
    addressLine2: Nullable(Type.String()),
    city: Type.String(),
    state: Type.String(),
    postalCode: Type.String(),
  },
  { additionalProperties: false },
);

/** The holds' fields of the order as partners read it, after the core's (fulfillment/order-view.schemas.ts). */
export const HoldViewFields = {
  hold: Nullable(HoldView, { description: 'Why the order is on hold and whose move it is; null when it is not on hold.' }),
  hold_history: Type.Array(Type.Object(HoldHistoryEntryFields, { additionalProperties: false }), {
    description: 'Every hold of the order, your answers and each resume, oldest first (empty for an order never held).',
  }),
  shipping_address: Nullable(OrderShippingAddress, {
    description: 'The address your hold answer gave this order; null: it ships to the patient\u2019s address.',
  }),
};
export type HoldViewData = Static<TObject<typeof HoldViewFields>>;

/** `POST /api/admin/medication-requests/{id}/hold`: why, what the partner is told, and (for `other`) whose move it is. */
export const HoldBody = Type.Object(
  {
    reason_code: HoldReasonCodeSchema,
    message: HoldMessage('What the partner is told: what is wrong and what would resolve it. 1 to 2,000 characters.'),
    waiting_on: Type.Optional(WaitingOnSchema),
  },
  { $id: 'MedicationOrderHoldRequest', additionalProperties: false },
);
export type HoldBodyInput = Static<typeof HoldBody>;

/** `POST /api/admin/medication-requests/{id}/resume`: an optional note for the history. */
export const ResumeBody = Type.Object(
  { message: Type.Optional(HoldMessage('A note for the history (the partner reads it). 1 to 2,000 characters.')) },
  { $id: 'MedicationOrderResumeRequest', additionalProperties: false },
);

/** `POST /api/external/medication-order/{id}/hold-response`. */
export const HoldResponseBody = Type.Object(
  {
    message: HoldMessage('Your answer to the pharmacy. 1 to 2,000 characters.'),
    /** A corrected shipping address for this order (the patient's shape): see the route's description. */
    address: Type.Optional(Address),
    cancel: Type.Optional(
      Type.Boolean({ description: '`true` cancels the order, as `POST …/cancel` does. Not with `address`.' }),
    ),
  },
  { $id: 'MedicationOrderHoldResponse', additionalProperties: false },
);
export type HoldResponseInput = Static<typeof HoldResponseBody>;

/** The sandbox's hold: any catalog code; the message and `waiting_on` (for `other`) are optional. */
export const SandboxHoldBody = Type.Object(
  {
    reason_code: HoldReasonCodeSchema,
    message: Type.Optional(HoldMessage('What the pharmacy would write; default: the reason\u2019s text.')),
    waiting_on: Type.Optional(WaitingOnSchema),
  },
  { $id: 'SandboxMedicationOrderHoldRequest', additionalProperties: false },
);

/** One reason of the catalog. */
export const HoldReasonView = Type.Object(
  {
    code: Type.String(),
    reason: Type.String({ description: 'What stopped the order.' }),
    waiting_on: Type.Union([Type.Literal('partner'), Type.Literal('pharmacy'), Type.Null()], {
      description: 'Whose move it is when a hold of this reason begins; null for `other`: the hold says.',
    }),
    answer: Type.String({ description: 'What resolves the hold.' }),
  },
  { $id: 'HoldReason', additionalProperties: false },
);
export const HoldReasonList = Type.Array(HoldReasonView);
