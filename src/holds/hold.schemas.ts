import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Nullable, StringEnum, Text, textDoc, Timestamp, Uuid } from '../contracts/schemas.js';
import { Address } from '../patients/patient.schemas.js';
import { ACTORS } from '../orders/order-status.js';
import { HOLD_REASON_CODES, HOLD_RESOLUTIONS, WAITING_ON } from './hold-reasons.js';

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

/** One open hold of an order, as a partner reads it in `holds`. */
export const OpenHoldView = Type.Object(
  {
    hold_id: Uuid('The hold\u2019s id (the history\u2019s rows about it name it).'),
    reason_code: Type.String({ description: 'A code of `GET /api/external/hold-reasons`.' }),
    reason: Type.String({ description: 'The catalog\u2019s text for the code.' }),
    message: Type.String({ description: 'The pharmacy\u2019s message to you.' }),
    waiting_on: WaitingOnSchema,
    clinical: Type.Boolean({
      description:
        '`true` for a clinical check (`allergy_conflict`, `duplicate_therapy`): only a pharmacist\u2019s override resolves it; your answer is recorded, it does not resolve it.',
    }),
    since: Timestamp,
    answered_at: Nullable(Timestamp, { description: 'When you last answered while it was open; null: not answered.' }),
  },
  { $id: 'MedicationOrderOpenHold', additionalProperties: false },
);

/** One step of a hold's conversation (the partner's view; the operator's adds who by name). */
export const HoldHistoryEntryFields = {
  kind: Type.Union([Type.Literal('hold'), Type.Literal('answer'), Type.Literal('resolve'), Type.Literal('resume')], {
    description:
      '`hold`: a hold opened (an order may have several); `answer`: your answer; `resolve`: one hold resolved while others stay open (the order stays on hold); `resume`: the last open hold resolved, the order resumed.',
  }),
  reason_code: Nullable(Type.String()),
  waiting_on: Nullable(WaitingOnSchema),
  message: Nullable(Type.String()),
  actor: Type.Union(ACTORS.map((a) => Type.Literal(a))),
  at: Timestamp,
  hold_id: Nullable(Uuid(), {
    description: 'The hold the row is about (`holds[].hold_id`); null for rows written before holds stacked.',
  }),
  resolution: Nullable(StringEnum(HOLD_RESOLUTIONS, 'How the hold was resolved (`resolve` and `resume` rows).'), {
    description:
      'On `resolve` and `resume` rows: `answer` (your address answered it), `resume` (the pharmacy resolved it), `override` (a pharmacist overrode a clinical hold); null otherwise.',
  }),
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
  hold: Nullable(HoldView, {
    description:
      'Why the order is on hold and whose move it is: the open hold that waits on you, else the oldest open one (all of them are in `holds`); null when it is not on hold.',
  }),
  holds: Type.Array(OpenHoldView, {
    description:
      'Every open hold of the order, oldest first (empty when it is not on hold). The order resumes when the last is resolved.',
  }),
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

/** A pharmacist's reason for overriding a clinical hold: the rules of notes. */
const OverrideReason = HoldMessage(
  'Required to resolve a clinical hold (`allergy_conflict`, `duplicate_therapy`), and only then: why the pharmacist lets the order proceed (the pharmacy\u2019s record: the history and the audit trail). Only a pharmacist signed in as themselves gives one. 1 to 2,000 characters.',
);

/** `POST /api/admin/medication-requests/{id}/resume`: an optional note for the history; a clinical hold's override reason. */
export const ResumeBody = Type.Object(
  {
    message: Type.Optional(
      HoldMessage('A note for the history (the partner reads it; not an override reason). 1 to 2,000 characters.'),
    ),
    override_reason: Type.Optional(OverrideReason),
  },
  { $id: 'MedicationOrderResumeRequest', additionalProperties: false },
);

/** `POST /api/admin/medication-requests/{id}/holds/{hold_id}/resolve`: the same fields as a resume. */
export const ResolveHoldBody = Type.Object(
  {
    message: Type.Optional(
      HoldMessage('A note for the history (the partner reads it; not an override reason). 1 to 2,000 characters.'),
    ),
    override_reason: Type.Optional(OverrideReason),
  },
  { $id: 'MedicationOrderResolveHoldRequest', additionalProperties: false },
);

/** The path of one hold of an order. */
export const HoldIdParams = Type.Object({ id: Uuid(), hold_id: Uuid() });

/** The sandbox's resume: an optional note (it cannot override a clinical hold). */
export const SandboxResumeBody = Type.Object(
  { message: Type.Optional(HoldMessage('A note for the history. 1 to 2,000 characters.')) },
  { $id: 'SandboxMedicationOrderResumeRequest', additionalProperties: false },
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
    clinical: Type.Boolean({
      description: '`true` for a clinical check: only a pharmacist\u2019s override resolves it (docs/orders.md#clinical-holds).',
    }),
  },
  { $id: 'HoldReason', additionalProperties: false },
);
export const HoldReasonList = Type.Array(HoldReasonView);
