import { Type } from '@sinclair/typebox';

/* The EasyPost receiver's contract (docs/shipping.md#the-easypost-receiver): the Event as documented, and the receipts. */

/** The receipt of an Event the receiver read. */
export const EasyPostReceived = Type.Object(
  {
    event_id: Type.String({ description: 'The Event\u2019s `id` (`evt_…`).' }),
    outcome: Type.Union([Type.Literal('applied'), Type.Literal('unchanged'), Type.Literal('ignored')], {
      description:
        '`applied`: the shipment\u2019s journey changed; `unchanged`: nothing new (a replayed Event, scans already recorded, a delivered shipment); `ignored`: an Event other than tracker.updated.',
    }),
  },
  { additionalProperties: false },
);
/** The receipt of a tracker.updated Event for a tracking number no shipment has. */
export const EasyPostUnmatched = Type.Object(
  {
    event_id: Type.String(),
    outcome: Type.Literal('unknown_tracking_number'),
  },
  { additionalProperties: false },
);

/** The body as documented: what the receiver reads of an EasyPost Event (any other field is allowed and ignored). */
export const EasyPostEventBody = Type.Object(
  {
    id: Type.String({ description: 'The Event\u2019s id, `evt_…`.', examples: ['evt_9f1c2a7b44d04ea1b3c5d6e7f8a9b0c1'] }),
    description: Type.String({ description: 'The Event type: `tracker.updated` is read, any other is ignored (200).' }),
    result: Type.Optional(
      Type.Object(
        {
          tracking_code: Type.String({ description: 'Matched to a shipment\u2019s tracking number.' }),
          status: Type.Optional(Type.String()),
          est_delivery_date: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          tracking_details: Type.Optional(
            Type.Array(
              Type.Object({
                status: Type.String({ description: 'Mapped onto the shipment statuses (docs/shipping.md).' }),
                message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                datetime: Type.String({ format: 'date-time' }),
                tracking_location: Type.Optional(
                  Type.Object({
                    city: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                    state: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                    country: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                    zip: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                  }),
                ),
              }),
            ),
          ),
        },
        { description: 'The Tracker (tracker.updated).' },
      ),
    ),
  },
  { description: 'An EasyPost Event, signed in X-Hmac-Signature. Read as sent: its raw bytes are checked before it is parsed.' },
);
