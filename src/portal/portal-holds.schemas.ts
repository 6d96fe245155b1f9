import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { StatusSchema } from '../orders/order.schemas.js';
import { HoldHistoryEntryFields, HoldView } from '../holds/hold.schemas.js';

/* The portal's "Needs your answer" (docs/portal.md): the clinic's orders on hold, and its answers. */

export const PortalHold = Type.Object(
  {
    medication_request_id: Uuid('The medication request\u2019s id.'),
    created_at: Timestamp,
    held_from: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('shipped')], {
      description:
        'The status the order returns to when it is resumed (`shipped`: a delivery exception held it, and it cannot be cancelled).',
    }),
    hold: HoldView,
    answer: Type.String({ description: 'What resolves the hold: the catalog\u2019s `answer` for its reason.' }),
    answered_at: Nullable(Timestamp, { description: 'When your clinic last answered this hold (null: not yet).' }),
    hold_history: Type.Array(Type.Object(HoldHistoryEntryFields, { additionalProperties: false }), {
      description: 'The hold\u2019s conversation, oldest first.',
    }),
  },
  { additionalProperties: false },
);
export type PortalHoldView = Static<typeof PortalHold>;

export const PortalHoldPage = Type.Object(
  {
    items: Type.Array(PortalHold),
    next_cursor: Nullable(Type.String(), { description: 'Pass as `cursor` for the next page; null on the last.' }),
    waiting_on_partner: Type.Integer({ description: 'How many of your clinic\u2019s orders on hold wait on your answer.' }),
    waiting_on_pharmacy: Type.Integer({ description: 'How many wait on the pharmacy.' }),
  },
  { additionalProperties: false },
);
export type PortalHoldPageView = Static<typeof PortalHoldPage>;

export const PortalHoldsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type PortalHoldsQuery = Static<typeof PortalHoldsQuery>;

export const PortalHoldParams = Type.Object({ orderId: Uuid('The medication request\u2019s id.') });

/** What an answer left: the order's status, and its hold if it is still on hold (now waiting on the pharmacy). */
export const PortalHoldAnswer = Type.Object(
  {
    medication_request_id: Uuid(),
    status: StatusSchema,
    hold: Nullable(HoldView, { description: 'Null when the answer resumed or cancelled the order.' }),
  },
  { additionalProperties: false },
);
export type PortalHoldAnswerView = Static<typeof PortalHoldAnswer>;
