import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../contracts/schemas.js';
import { HOLD_REASON_CODES } from './hold-reasons.js';

const WaitingOnSchema = (description: string) => Type.Union([Type.Literal('partner'), Type.Literal('pharmacy')], { description });

const ReasonCodeSchema = (description: string) =>
  Type.Union(
    HOLD_REASON_CODES.map((code) => Type.Literal(code)),
    { description },
  );

export const HoldQueueQuery = Type.Object({
  waiting_on: Type.Optional(
    WaitingOnSchema('Only the holds waiting on the partner (the clinic must answer) or on the pharmacy (its move).'),
  ),
  reason_code: Type.Optional(ReasonCodeSchema('Only the holds of this reason (the catalog: GET /api/admin/hold-reasons).')),
  ...PageQuery,
});
export type HoldQueueQueryData = Static<typeof HoldQueueQuery>;

export const HoldQueueItem = Type.Object(
  {
    medication_request_id: Uuid(),
    clinic_id: Uuid(),
    clinic_name: Type.String(),
    patient: Type.Object(
      { patient_id: Uuid(), first_name: Type.String(), last_name: Type.String() },
      { additionalProperties: false, description: 'Whom the order is for. PHI: the read is audited.' },
    ),
    held_from: Type.Union([Type.Literal('pending'), Type.Literal('processing')], {
      description: 'The status a resume returns the order to.',
    }),
    hold: Type.Object(
      {
        reason_code: ReasonCodeSchema('The catalog\u2019s code.'),
        reason: Type.String({ description: 'The catalog\u2019s text of the reason.' }),
        message: Nullable(Type.String({ description: 'The pharmacy\u2019s message to the partner when it held the order.' })),
        waiting_on: WaitingOnSchema('Whose move it is: the partner\u2019s (an answer) or the pharmacy\u2019s.'),
        since: Timestamp,
      },
      { additionalProperties: false },
    ),
    answered_at: Nullable(Timestamp, { description: 'When the partner last answered this hold; null before any answer.' }),
    age_business_hours: Type.Number({
      description:
        'Working hours (Monday to Friday, 09:00-17:00 in PHARMACY_TIME_ZONE) since the hold began, until now; rounded down to a tenth.',
    }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export type HoldQueueItemData = Static<typeof HoldQueueItem>;

export const HoldReasonItem = Type.Object(
  {
    code: ReasonCodeSchema('The reason\u2019s code, as a hold names it.'),
    reason: Type.String({ description: 'What the reason means.' }),
    waiting_on: Nullable(WaitingOnSchema('Whom a hold of this reason waits on; null for `other`, where the pharmacy says.')),
    answer: Type.String({ description: 'What resolves a hold of this reason.' }),
  },
  { additionalProperties: false },
);
