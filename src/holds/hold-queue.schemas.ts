import { Type, type Static } from '@sinclair/typebox';
import { PageQuery, Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { HoldReasonCodeSchema, HoldView, WaitingOnSchema } from './hold.schemas.js';

/** The catalog's enums, described for the pharmacy (their own descriptions speak to partners). */
const WaitingOnFilter = Type.Unsafe<Static<typeof WaitingOnSchema>>({
  ...WaitingOnSchema,
  description:
    'Only the holds waiting on the partner (its answer) or on the pharmacy (a partner answered, or the pharmacy acts).',
});
const ReasonCodeFilter = Type.Unsafe<Static<typeof HoldReasonCodeSchema>>({
  ...HoldReasonCodeSchema,
  description: 'Only the holds of this reason (`GET /api/admin/hold-reasons` lists them).',
});

export const HoldQueueQuery = Type.Object({
  waiting_on: Type.Optional(WaitingOnFilter),
  reason_code: Type.Optional(ReasonCodeFilter),
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
    held_from: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('shipped')], {
      description: 'The status a resume returns the order to (`shipped` after a `delivery_exception` hold).',
    }),
    hold: HoldView,
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
