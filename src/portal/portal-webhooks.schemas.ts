import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { MAX_IN_FLIGHT, MAX_PER_SECOND } from '../delivery/endpoint-limits.js';
import {
  DeliveryStatusSchema,
  EventTypeSchema,
  limitFields,
  PreviousSecretExpiresAt,
  EndpointUrl,
} from '../webhooks/webhook.schemas.js';

/** The partner portal's webhook views (docs/portal.md, "Webhooks"): complete, and nothing else leaves. */

export const PortalWebhookParams = Type.Object({ webhookId: Uuid('One of your clinic\u2019s endpoints.') });
export const PortalDeliveryParams = Type.Object({ deliveryId: Uuid('One of your clinic\u2019s deliveries.') });

export const PortalEndpoint = Type.Object(
  {
    webhook_id: Uuid(),
    url: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
      description: 'disabled: by you, or after 5 days of failures or a 410 Gone; nothing is sent to it.',
    }),
    max_in_flight: Type.Integer({ minimum: MAX_IN_FLIGHT.min, maximum: MAX_IN_FLIGHT.max }),
    max_per_second: Nullable(Type.Integer({ minimum: MAX_PER_SECOND.min, maximum: MAX_PER_SECOND.max }), {
      description: 'null: no limit.',
    }),
    event_types: Nullable(Type.Array(Type.String()), {
      description: 'The event types the endpoint receives; null: every type, including types added later.',
    }),
    paused_until: Nullable(Timestamp, {
      description: 'Attempts held until then (the endpoint answered 429, or 503 with Retry-After).',
    }),
    failing_since: Nullable(Timestamp, { description: 'The first failed attempt since the last success; null while healthy.' }),
    disabled_reason: Nullable(Type.String()),
    created_at: Timestamp,
    previous_secret_expires_at: PreviousSecretExpiresAt,
  },
  { additionalProperties: false },
);
export type PortalEndpointView = Static<typeof PortalEndpoint>;

export const PortalEndpointList = Type.Object({ webhooks: Type.Array(PortalEndpoint) }, { additionalProperties: false });

export const PortalCreateEndpointBody = Type.Object(
  { url: EndpointUrl, ...limitFields },
  {
    additionalProperties: false,
    'x-aliases': { webhook_url: 'url', maxInFlight: 'max_in_flight', maxPerSecond: 'max_per_second' },
  },
);
export type PortalCreateEndpointBody = Static<typeof PortalCreateEndpointBody>;

export const PortalEndpointWithSecret = Type.Object(
  {
    webhook: PortalEndpoint,
    secret: Type.String({ description: 'The signing secret (`whsec_` + base64), shown only in this answer.' }),
  },
  { additionalProperties: false },
);

export const PortalRequeued = Type.Object(
  { requeued: Type.Integer({ minimum: 0, description: 'Failed or waiting deliveries made due now.' }) },
  { additionalProperties: false },
);

export const PortalDeliveryQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatusSchema),
    event_type: Type.Optional(EventTypeSchema),
    webhook_id: Type.Optional(Uuid('Only deliveries to this endpoint.')),
    since: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Created at or after this time.' })),
    until: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Created before this time.' })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  },
  { additionalProperties: false },
);
export type PortalDeliveryQuery = Static<typeof PortalDeliveryQuery>;

const deliveryFields = {
  delivery_id: Uuid(),
  event_id: Type.String({ description: 'The `webhook-id` header sent (the same on every attempt).' }),
  event_type: Type.String(),
  webhook_id: Uuid(),
  url: Type.String(),
  status: DeliveryStatusSchema,
  attempt_count: Type.Integer({ minimum: 0 }),
  last_response_status: Nullable(Type.Integer()),
  last_error: Nullable(
    Type.String({
      description:
        '`HTTP <status>`, `endpoint disabled: …`, `endpoint deleted`, or why no status came: timeout, network_error, refused, not_sent (the details are never shown).',
    }),
  ),
  next_attempt_at: Nullable(Timestamp),
  created_at: Timestamp,
  delivered_at: Nullable(Timestamp),
};

export const PortalDelivery = Type.Object(deliveryFields, { additionalProperties: false });
export type PortalDeliveryView = Static<typeof PortalDelivery>;

export const PortalDeliveryPage = Type.Object(
  { items: Type.Array(PortalDelivery), next_cursor: Nullable(Type.String()) },
  { additionalProperties: false },
);

export const PortalAttempt = Type.Object(
  {
    attempted_at: Timestamp,
    response_status: Nullable(Type.Integer({ description: 'The status your endpoint answered; null when none came.' })),
    duration_ms: Type.Integer(),
    error: Nullable(
      Type.Union([Type.Literal('timeout'), Type.Literal('network_error'), Type.Literal('refused'), Type.Literal('not_sent')], {
        description: 'Why no status came (null when one did); your endpoint\u2019s response body is never shown.',
      }),
    ),
    throttled: Type.Boolean({ description: 'The endpoint asked us to slow down (429, or 503 with Retry-After).' }),
  },
  { additionalProperties: false },
);

export const PortalDeliveryDetail = Type.Object(
  { ...deliveryFields, attempts: Type.Array(PortalAttempt, { description: 'Every attempt, first first.' }) },
  { additionalProperties: false },
);
export type PortalDeliveryDetailView = Static<typeof PortalDeliveryDetail>;
