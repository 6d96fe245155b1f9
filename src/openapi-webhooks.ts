import { EVENT_PAYLOADS, WebhookEvent, type WebhookEventType } from './events/event.schemas.js';

/** When each event is sent (docs/webhooks.md, "Events and their payloads"). */
const WHEN: Record<WebhookEventType, string> = {
  'order.created': 'A medication request is accepted, including the new order of a refill.',
  'order.fulfilled': 'An order ships: its tracking number and carrier.',
  'order.delivered': 'An order is delivered.',
  'order.cancelled': 'An order is cancelled (from `pending`, `processing` or `on_hold`).',
  'order.on_hold':
    'An order is put on hold by the pharmacy, or its hold changes (a new reason, or waiting on you again). Read the order for the pharmacy\u2019s message; answer with `POST /api/external/medication-order/{id}/hold-response` when `waiting_on` is `partner`.',
  'order.resumed':
    'An order on hold is resumed, to the status it was held from (your address answer to an `address_undeliverable` hold resumes it at once).',
  'refill.ready': 'A refill request is accepted and its new order created (sent just after that order\u2019s `order.created`).',
  'shipment.updated':
    'A shipment of an order changes status (a carrier tracking event, or the pharmacy\u2019s): once per status change, never for an event that leaves the status as it was. Read the order for the journey\u2019s locations and descriptions.',
  'webhook.test': 'Only from the test call (`POST /api/external/webhook/test`).',
};

/** The Standard Webhooks headers of every delivery. @see https://www.standardwebhooks.com/ */
const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event\u2019s id: the same on every retry and for every endpoint. De-duplicate on it.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    description: 'Unix seconds of this attempt. Refuse a delivery far from your clock (the libraries allow \u00b15 minutes).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` + base64 HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify the raw body before parsing it.',
    schema: { type: 'string', pattern: '^v1,' },
  },
].map((header) => ({ ...header, in: 'header', required: true }));

/** `order.created` → `OrderCreatedEvent`, `order.on_hold` → `OrderOnHoldEvent`: the component name of an event's body. */
export const eventSchemaName = (type: WebhookEventType): string =>
  `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;

/** `order.created` → `orderCreatedWebhook`. */
const operationIdOf = (type: WebhookEventType): string => {
  const name = eventSchemaName(type).replace(/Event$/, 'Webhook');
  return name.charAt(0).toLowerCase() + name.slice(1);
};

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type, the request the server sends to a
 * partner's endpoint (body `{type, timestamp, data}` and the Standard Webhooks headers), with each
 * body a named component.
 */
export function webhookEvents(): { webhooks: Record<string, unknown>; schemas: Record<string, unknown> } {
  const webhooks: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const [type, data] of Object.entries(EVENT_PAYLOADS) as [WebhookEventType, (typeof EVENT_PAYLOADS)[WebhookEventType]][]) {
    const name = eventSchemaName(type);
    // A plain JSON copy: TypeBox's own (symbol) keys are no part of the document.
    schemas[name] = JSON.parse(JSON.stringify(WebhookEvent(type, data))) as unknown;
    webhooks[type] = {
      post: {
        operationId: operationIdOf(type),
        tags: ['Webhooks'],
        summary: `${type}: ${WHEN[type]}`,
        description:
          'Sent by the server to each active endpoint of the clinic, signed (Standard Webhooks). Answer 2xx quickly; anything else, or no answer in time, is retried on the schedule of docs/webhooks.md. Ignore (and answer 2xx to) event types you do not know.',
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '200': { description: 'Received (any 2xx status): the delivery is done.' },
          '410': { description: 'Any other status, or none in time: the delivery is retried.' },
        },
      },
    };
  }
  return { webhooks, schemas };
}
