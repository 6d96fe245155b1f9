// Over 250 lines: the schemas of the webhook endpoint resource (register, update, limits, recovery, secrets) that share field definitions and examples.
import { Type, type Static } from '@sinclair/typebox';
import { deprecatedProperty } from '../deprecations/deprecated-route.js';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../events/event-types.js';
import { Nullable, Page, PageQuery, Timestamp, Uuid } from '../contracts/schemas.js';
import { MAX_IN_FLIGHT, MAX_PER_SECOND } from '../delivery/endpoint-limits.js';
import { PREVIOUS_VALID_HOURS } from '../delivery/endpoint-secret.js';
import { MAX_URL_LENGTH } from '../delivery/url-safety.js';
import { MAX_EVENT_TYPES } from '../events/event-type-filter.js';

export const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    'Absolute URL receiving POSTs: https:// (http:// too in development); no credentials; a public host (see docs/webhooks.md).',
  examples: ['https://partner.example.com/webhooks/fulfillment'],
});

const ALIASES = {
  url: 'webhook_url',
  webhookUrl: 'webhook_url',
  id: 'webhook_id',
  webhookId: 'webhook_id',
  clinicId: 'clinic_id',
};
const LIMIT_ALIASES = { maxInFlight: 'max_in_flight', maxPerSecond: 'max_per_second' };
const aliases = { 'x-aliases': ALIASES };

const ACROSS_WORKERS = 'across all of the pharmacy\u2019s delivery workers';

const MaxInFlight = Type.Integer({
  minimum: MAX_IN_FLIGHT.min,
  maximum: MAX_IN_FLIGHT.max,
  description: `At most this many attempts to the endpoint at once, ${ACROSS_WORKERS}: ${MAX_IN_FLIGHT.min} to ${MAX_IN_FLIGHT.max}. Default at registration: ${MAX_IN_FLIGHT.default}.`,
  examples: [MAX_IN_FLIGHT.default],
  'x-message': `must be a whole number from ${MAX_IN_FLIGHT.min} to ${MAX_IN_FLIGHT.max}`,
});

const MaxPerSecond = Nullable(
  Type.Integer({
    minimum: MAX_PER_SECOND.min,
    maximum: MAX_PER_SECOND.max,
    examples: [20],
    // On the integer, where Ajv reports a bad value (the null branch's "must be null" is not shown).
    'x-message': `must be a whole number from ${MAX_PER_SECOND.min} to ${MAX_PER_SECOND.max}, or null for no limit`,
  }),
  {
    description: `At most this many attempts started per second to the endpoint, ${ACROSS_WORKERS}: ${MAX_PER_SECOND.min} to ${MAX_PER_SECOND.max}; null (the default at registration): no limit.`,
  },
);

/** The event types an endpoint receives (issue 31, item 6): names of EVENT_TYPES, or null for every type. */
export const EventTypesField = Nullable(
  Type.Array(Type.String({ maxLength: 100 }), { maxItems: MAX_EVENT_TYPES, examples: [['order.created', 'order.delivered']] }),
  {
    description:
      'The event types the endpoint receives, by name (duplicates are dropped, first-seen order kept); an unknown name is refused with 400 listing the valid ones, and so is an empty list. null (the default at registration): every type, including types added later. The test call is sent whatever the list.',
  },
);

/** The partner's limits, in a request body: both optional; `max_per_second` may be null (no limit); and the endpoint's event types. */
export const limitFields = {
  max_in_flight: Type.Optional(MaxInFlight),
  max_per_second: Type.Optional(MaxPerSecond),
  event_types: Type.Optional(EventTypesField),
};

// ---- partner API ----

export const RegisterEndpointBody = Type.Object(
  { clinic_id: Uuid('Your clinic.'), webhook_url: EndpointUrl, ...limitFields },
  { $id: 'WebhookCreateRequest', additionalProperties: false, 'x-aliases': { ...ALIASES, ...LIMIT_ALIASES } },
);
export type RegisterEndpointBody = Static<typeof RegisterEndpointBody>;

/** `PATCH /api/external/webhook/{webhookId}`: the limits to change (at least one); the others are kept. */
export const UpdateEndpointBody = Type.Object(limitFields, {
  $id: 'WebhookUpdateRequest',
  additionalProperties: false,
  minProperties: 1,
  'x-message': 'must change at least one of max_in_flight, max_per_second, event_types',
  'x-aliases': LIMIT_ALIASES,
});
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

export const EndpointRef = Type.Object(
  { clinic_id: Uuid('Your clinic.'), webhook_id: Uuid('The id returned at registration.') },
  { $id: 'WebhookReference', additionalProperties: false, ...aliases },
);
export type EndpointRef = Static<typeof EndpointRef>;

/**
 * `DELETE /api/external/webhook?id=…`, without a body: the form of the original system's clients
 * (deprecated with the route). Other query parameters are ignored, as before.
 */
export const DeleteEndpointQuery = Type.Object({
  id: Type.Optional(
    deprecatedProperty(
      'webhook_delete_with_query_id',
      Uuid(
        'The endpoint to delete, as the original system\u2019s clients send it, instead of the body; the clinic is the credential\u2019s.',
      ),
    ),
  ),
});

const Since = Type.String({
  format: 'date-time',
  maxLength: 40,
  description:
    'Recover deliveries created at or after this ISO 8601 time (with its offset, e.g. `2026-03-01T08:00:00Z`). Default: 24 hours ago; at most 7 days ago; not in the future.',
  examples: ['2026-03-01T08:00:00Z'],
});

export const PartnerRecoverEndpointBody = Type.Object(
  {
    clinic_id: Uuid('Your clinic.'),
    webhook_id: Uuid('The id returned at registration.'),
    since: Type.Optional(Since),
  },
  { $id: 'WebhookRecoverRequest', additionalProperties: false, ...aliases },
);
export type PartnerRecoverEndpointBody = Static<typeof PartnerRecoverEndpointBody>;

export const Recovered = Type.Object(
  {
    scheduled: Type.Integer({
      minimum: 0,
      description: 'Deliveries (failed, or waiting for a retry) now due for an attempt at once.',
    }),
  },
  { $id: 'WebhookRecovered', additionalProperties: false },
);
export type RecoveredView = Static<typeof Recovered>;

/** The body of a signing-secret rotation (partner API and portal): how long the previous secret keeps signing. */
export const RotateSecretBody = Type.Object(
  {
    previous_valid_hours: Type.Optional(
      Type.Integer({
        minimum: PREVIOUS_VALID_HOURS.min,
        maximum: PREVIOUS_VALID_HOURS.max,
        default: PREVIOUS_VALID_HOURS.default,
        description: `How many hours the previous secret keeps signing beside the new one: ${PREVIOUS_VALID_HOURS.min} (it stops at once) to ${PREVIOUS_VALID_HOURS.max}; default ${PREVIOUS_VALID_HOURS.default}.`,
        'x-message': `must be a whole number from ${PREVIOUS_VALID_HOURS.min} to ${PREVIOUS_VALID_HOURS.max}`,
      }),
    ),
  },
  { $id: 'WebhookSecretRotateRequest', additionalProperties: false, 'x-aliases': { previousValidHours: 'previous_valid_hours' } },
);
export type RotateSecretBody = Static<typeof RotateSecretBody>;

/** Until when the previous secret signs beside the current one (a rotation's window). */
export const PreviousSecretExpiresAt = Nullable(Timestamp, {
  description:
    'Until then (ISO-8601 UTC) every attempt is signed with the previous secret too (two signatures in `webhook-signature`); null when only the current secret signs.',
});

export const RotatedSecret = Type.Object(
  {
    webhook_id: Uuid(),
    secret: Type.String({
      description: 'The new signing secret (`whsec_` + base64). Shown only in this response: store it to verify signatures.',
    }),
    previous_secret_expires_at: PreviousSecretExpiresAt,
  },
  { $id: 'WebhookSecretRotated', additionalProperties: false },
);

export const ListEndpointsQuery = Type.Object(
  { clinic_id: Type.Optional(Uuid('Your clinic (optional: defaults to the API key\u2019s).')) },
  { additionalProperties: false },
);

export const RegisteredEndpoint = Type.Object(
  {
    webhook_id: Uuid(),
    secret: Type.String({
      description: 'Signing secret (`whsec_` + base64). Shown only in this response: store it to verify signatures.',
    }),
  },
  { $id: 'WebhookCreated', additionalProperties: false },
);

export const DeletedEndpoint = Type.Object({ webhook_id: Uuid() }, { $id: 'WebhookDeleted', additionalProperties: false });

export const PartnerEndpoint = Type.Object(
  {
    webhook_id: Uuid(),
    clinic_id: Uuid(),
    webhook_url: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
      description: 'disabled: every attempt failed for 5 days, or the endpoint answered 410 Gone; the operator re-enables it.',
    }),
    disabled_at: Nullable(Type.String()),
    disabled_reason: Nullable(Type.String()),
    created_at: Type.String(),
    max_in_flight: Type.Integer({
      minimum: MAX_IN_FLIGHT.min,
      maximum: MAX_IN_FLIGHT.max,
      description: `At most this many attempts to the endpoint at once, ${ACROSS_WORKERS}.`,
    }),
    max_per_second: Nullable(Type.Integer({ minimum: MAX_PER_SECOND.min, maximum: MAX_PER_SECOND.max }), {
      description: `At most this many attempts started per second, ${ACROSS_WORKERS}; null: no limit.`,
    }),
    event_types: Nullable(Type.Array(Type.String()), {
      description: 'The event types the endpoint receives; null: every type, including types added later.',
    }),
    paused_until: Nullable(Timestamp, {
      description:
        'Attempts to this endpoint are held until then (ISO-8601 UTC) because it answered 429, or 503 with Retry-After; null when they are not held.',
    }),
  },
  { $id: 'Webhook', additionalProperties: false },
);
export type PartnerEndpointView = Static<typeof PartnerEndpoint>;

export const TestCallOutcome = Type.Object(
  {
    webhook_id: Uuid(),
    delivery_id: Uuid('The test call, as it appears in the operator\u2019s delivery log.'),
    event_id: Uuid('The `webhook-id` header sent.'),
    event_type: Type.Literal('webhook.test'),
    delivered: Type.Boolean({ description: 'True when the endpoint answered 2xx within the timeout.' }),
    status_code: Nullable(Type.Integer({ description: 'The HTTP status received; null on a network error or timeout.' })),
    attempted_at: Type.String(),
    duration_ms: Type.Integer({ description: 'Time from sending to the answer (or to the failure).' }),
    error: Nullable(
      Type.Union([Type.Literal('timeout'), Type.Literal('network_error'), Type.Literal('refused')], {
        description: [
          'Why no status was received (null when one was): timeout; network_error (connection, TLS or DNS failure);',
          'refused (the URL points to a private or internal address). Deliberately coarse: the details, like your',
          'response body and headers, are never returned (they would let a caller read internal services).',
        ].join(' '),
      }),
    ),
  },
  { $id: 'WebhookTestResult', additionalProperties: false },
);
export type TestCallOutcomeView = Static<typeof TestCallOutcome>;

export const DeliveryStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('cancelled')],
  {
    description:
      'pending (waiting for its next attempt), delivered, failed (attempts exhausted or endpoint disabled), cancelled (endpoint deleted)',
  },
);

export const WebhookIdParams = Type.Object({ webhookId: Uuid('The id returned at registration.') });

export const EventTypeSchema = Type.Union(
  [...EVENT_TYPES, TEST_EVENT_TYPE].map((t) => Type.Literal(t)),
  { description: 'An event type (see the webhooks section of the document).' },
);

/** `GET /api/external/webhook/deliveries`: filters and page of the clinic's delivery log. */
export const PartnerDeliveryQuery = Type.Object(
  {
    webhook_id: Type.Optional(Uuid('Only deliveries to this endpoint of your clinic.')),
    status: Type.Optional(DeliveryStatusSchema),
    event_type: Type.Optional(EventTypeSchema),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type PartnerDeliveryQuery = Static<typeof PartnerDeliveryQuery>;

const Throttled = Type.Boolean({
  description:
    'True when the endpoint asked us to slow down (429, or 503 with Retry-After): its attempts were held for a while, and such an attempt does not count toward disabling the endpoint.',
});

export const PartnerAttempt = Type.Object(
  {
    attempt_number: Type.Integer({ minimum: 1 }),
    attempted_at: Timestamp,
    duration_ms: Type.Integer({ description: 'Time from sending to the answer (or to the failure).' }),
    status_code: Nullable(Type.Integer({ description: 'The HTTP status your endpoint answered; null when none was received.' })),
    error: Nullable(
      Type.Union([Type.Literal('timeout'), Type.Literal('network_error'), Type.Literal('refused'), Type.Literal('not_sent')], {
        description: [
          'Why no status was received (null when one was): timeout; network_error (connection, TLS or DNS failure);',
          'refused (the URL points to a private or internal address); not_sent (the pharmacy could not sign it; it is',
          'retried on the schedule). Your endpoint\u2019s response body is never returned.',
        ].join(' '),
      }),
    ),
    throttled: Throttled,
  },
  { additionalProperties: false },
);
export type PartnerAttemptView = Static<typeof PartnerAttempt>;

export const PartnerDelivery = Type.Object(
  {
    delivery_id: Uuid(),
    event_id: Type.String({ description: 'The `webhook-id` header sent (the same on every attempt).' }),
    event_type: Type.String(),
    webhook_id: Uuid(),
    webhook_url: Type.String(),
    status: DeliveryStatusSchema,
    attempt_count: Type.Integer({ minimum: 0 }),
    next_attempt_at: Nullable(Timestamp),
    delivered_at: Nullable(Timestamp),
    created_at: Timestamp,
    attempts: Type.Array(PartnerAttempt, { description: 'Every attempt, first first.' }),
  },
  { additionalProperties: false },
);
export type PartnerDeliveryView = Static<typeof PartnerDelivery>;

export const PartnerDeliveryPage = Page(PartnerDelivery);

// ---- operator API ----

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatusSchema),
    clinic_id: Type.Optional(Uuid()),
    event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    webhook_id: Type.Optional(Uuid()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const DeliveryIdParams = Type.Object({ id: Uuid() });
export const EndpointIdParams = Type.Object({ id: Uuid() });

export const Delivery = Type.Object(
  {
    delivery_id: Uuid(),
    event_id: Type.String(),
    event_type: Type.String(),
    clinic_id: Uuid(),
    webhook_id: Uuid(),
    webhook_url: Type.String(),
    medication_request_id: Nullable(
      Type.String({ description: 'The order the event is about (null for a test call): from the body sent.' }),
    ),
    status: DeliveryStatusSchema,
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(Type.String()),
    last_attempt_at: Nullable(Type.String()),
    last_response_status: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    delivered_at: Nullable(Type.String()),
    created_at: Type.String(),
  },
  { additionalProperties: false },
);
export type DeliveryView = Static<typeof Delivery>;

export const Attempt = Type.Object(
  {
    attempt_number: Type.Integer(),
    attempted_at: Type.String(),
    duration_ms: Type.Integer(),
    response_status: Nullable(Type.Integer()),
    response_body: Nullable(Type.String()),
    error: Nullable(Type.String()),
    throttled: Throttled,
  },
  { additionalProperties: false },
);
export type AttemptView = Static<typeof Attempt>;

export const DeliveryDetail = Type.Object(
  {
    ...Delivery.properties,
    body: Type.String({ description: 'The exact JSON sent on every attempt (ids and statuses only, no PHI).' }),
    attempts: Type.Array(Attempt),
  },
  { additionalProperties: false },
);
export type DeliveryDetailView = Static<typeof DeliveryDetail>;

export const OperatorEndpoint = Type.Object(
  { ...PartnerEndpoint.properties, failing_since: Nullable(Type.String()) },
  { additionalProperties: false },
);
export type OperatorEndpointView = Static<typeof OperatorEndpoint>;

export const OperatorEndpointQuery = Type.Object(
  {
    clinic_id: Type.Optional(Uuid()),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type OperatorEndpointQuery = Static<typeof OperatorEndpointQuery>;

/** A page of endpoints: `endpoints` (the name this list had before it paged) and the cursor of the next page. */
export const OperatorEndpointPage = Type.Object(
  { endpoints: Type.Array(OperatorEndpoint), next_cursor: Nullable(Type.String()) },
  { additionalProperties: false },
);
export type OperatorEndpointPageView = Static<typeof OperatorEndpointPage>;

export const RecoverEndpointParams = Type.Object({ webhookId: Uuid() });

export const RecoverEndpointBody = Type.Object({ since: Type.Optional(Since) }, { additionalProperties: false });

export const EnableEndpointQuery = Type.Object(
  {
    redeliver_failed: Type.Optional(
      Type.Boolean({ default: false, description: 'Also put the endpoint\u2019s failed deliveries back in the queue, due now.' }),
    ),
  },
  { additionalProperties: false },
);

export const EnabledEndpoint = Type.Object(
  { ...OperatorEndpoint.properties, redelivered: Type.Integer({ description: 'Failed deliveries queued again.' }) },
  { additionalProperties: false },
);
export type EnabledEndpointView = Static<typeof EnabledEndpoint>;
