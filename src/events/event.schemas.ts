import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import type { OutboxEventType, TEST_EVENT_TYPE } from './event-types.js';
import { SHIPMENT_STATUSES } from '../shipping/shipment-status.js';

/*
 * The payload (`data`) of each event a partner's endpoint receives, as written by the services
 * (medication-request.service.ts, medication-request-transition.service.ts, refill.service.ts and
 * the test call in webhook.service.ts). Documentation only: the OpenAPI document's `webhooks`
 * section (openapi-webhooks.ts) and docs/webhooks.md. Payloads carry ids, statuses and shipping
 * facts, never PHI.
 */

const OrderId = Uuid('The medication request (order).');

/** Every order event's counter (issue 31, item 8; docs/webhooks.md#ordering). */
const Sequence = Type.Integer({
  minimum: 1,
  description:
    'The order’s event counter: 1 for its first event, one more for each later event of the same order. Keep the highest seen per order and drop events with a lower one (docs/webhooks.md#ordering).',
});

export const EVENT_PAYLOADS = {
  'order.created': Type.Object(
    {
      medication_request_id: OrderId,
      sequence: Sequence,
      status: Type.Literal('pending'),
      patient_id: Uuid(),
      practitioner_id: Uuid(),
      refill_of: Nullable(Uuid('The order this one refills.')),
    },
    { additionalProperties: false },
  ),
  'order.fulfilled': Type.Object(
    {
      medication_request_id: OrderId,
      sequence: Sequence,
      status: Type.Literal('shipped'),
      tracking_number: Type.String(),
      carrier_id: Type.String(),
      shipped_at: Timestamp,
      items: Type.Array(
        Type.Object(
          {
            medication: Type.String({ description: 'The formulary entry’s name.' }),
            lot_number: Nullable(Type.String(), {
              description:
                'The lot dispensed; null for an entry with no formula shipped unfilled (docs/compounding.md#the-fill).',
            }),
            beyond_use_date: Nullable(Type.String({ format: 'date' }), {
              description: 'YYYY-MM-DD; null for an entry with no formula.',
            }),
          },
          { additionalProperties: false },
        ),
        { description: 'Each item of the order, in its order: what was dispensed (no PHI, no free text). Added in issue 30.' },
      ),
    },
    { additionalProperties: false },
  ),
  'order.delivered': Type.Object(
    { medication_request_id: OrderId, sequence: Sequence, status: Type.Literal('delivered'), delivered_at: Timestamp },
    { additionalProperties: false },
  ),
  'order.cancelled': Type.Object(
    {
      medication_request_id: OrderId,
      sequence: Sequence,
      status: Type.Literal('cancelled'),
      previous_status: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('on_hold')]),
      cancelled_at: Timestamp,
    },
    { additionalProperties: false },
  ),
  'refill.ready': Type.Object(
    {
      refill_request_id: Uuid(),
      medication_request_id: Uuid('The new order the refill created.'),
      sequence: Type.Integer({
        minimum: 1,
        description: 'The sequence of the new order’s events (after its `order.created`): docs/webhooks.md#ordering.',
      }),
      original_medication_request_id: Uuid('The order refilled.'),
      status: Type.Literal('open'),
    },
    { additionalProperties: false },
  ),
  'order.on_hold': Type.Object(
    {
      medication_request_id: OrderId,
      sequence: Sequence,
      status: Type.Literal('on_hold'),
      reason_code: Type.String({ description: 'A code of `GET /api/external/hold-reasons`.' }),
      waiting_on: Type.Union([Type.Literal('partner'), Type.Literal('pharmacy')], {
        description: '`partner`: answer with `POST /api/external/medication-order/{id}/hold-response`.',
      }),
    },
    {
      additionalProperties: false,
      description: 'Never the pharmacy\u2019s message (it may hold PHI): read the order for it.',
    },
  ),
  'order.resumed': Type.Object(
    {
      medication_request_id: OrderId,
      sequence: Sequence,
      status: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('shipped')], {
        description: 'The status the order returned to: the one it was held from (`shipped` after a `delivery_exception` hold).',
      }),
    },
    { additionalProperties: false },
  ),
  'shipment.updated': Type.Object(
    {
      medication_request_id: OrderId,
      shipment_id: Uuid('The shipment (one package of the order).'),
      status: Type.Union(
        SHIPMENT_STATUSES.map((s) => Type.Literal(s)),
        { description: 'The shipment\u2019s new status: that of its latest tracking event.' },
      ),
      tracking_number: Type.String(),
      tracking_url: Nullable(Type.String({ format: 'uri' }), {
        description: 'The carrier\u2019s public tracking page (UPS, FedEx, USPS); null for another carrier.',
      }),
      estimated_delivery_date: Nullable(Type.String({ format: 'date' }), {
        description: 'YYYY-MM-DD, the carrier\u2019s estimate.',
      }),
      sequence: Type.Integer({
        minimum: 1,
        description: 'The order\u2019s event counter (docs/webhooks.md#ordering): keep the highest seen per order.',
      }),
    },
    {
      additionalProperties: false,
      description:
        'Sent once per change of a shipment\u2019s status (docs/shipping.md#shipments-and-their-journey); never the event\u2019s location or description.',
    },
  ),
  'webhook.test': Type.Object({ webhook_id: Uuid(), clinic_id: Uuid(), message: Type.String() }, { additionalProperties: false }),
} satisfies Record<OutboxEventType | typeof TEST_EVENT_TYPE, TObject>;

export type WebhookEventType = keyof typeof EVENT_PAYLOADS;

/** What is sent for an event: `{type, timestamp, data}` (event-body.ts, the one builder of the body). */
export const WebhookEvent = <T extends TSchema>(type: WebhookEventType, data: T) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time', description: 'When the change happened (not the attempt), ISO-8601 UTC.' }),
      data,
    },
    { additionalProperties: false },
  );
