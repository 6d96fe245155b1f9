import { Type, type Static } from '@sinclair/typebox';
import { Address } from '../patients/patient.schemas.js';
import { HoldMessage, HoldReasonCodeSchema, WaitingOnSchema } from '../orders/order.schemas.js';

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
