import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import type { OutboxEventType, TEST_EVENT_TYPE } from './event-types.js';

/*
 * The payload (`data`) of each event a partner's endpoint receives, as written by the services
 * (medication-request.service.ts, medication-request-transition.service.ts, refill.service.ts and
 * the test call in webhook.service.ts). Documentation only: the OpenAPI document's `webhooks`
 * section (openapi-webhooks.ts) and docs/webhooks.md. Payloads carry ids, statuses and shipping
 * facts, never PHI.
 */

const OrderId = Uuid('The medication request (order).');

export const EVENT_PAYLOADS = {
  'order.created': Type.Object(
    {
      medication_request_id: OrderId,
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
    { medication_request_id: OrderId, status: Type.Literal('delivered'), delivered_at: Timestamp },
    { additionalProperties: false },
  ),
  'order.cancelled': Type.Object(
    {
      medication_request_id: OrderId,
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
      original_medication_request_id: Uuid('The order refilled.'),
      status: Type.Literal('open'),
    },
    { additionalProperties: false },
  ),
  'order.on_hold': Type.Object(
    {
      medication_request_id: OrderId,
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
      status: Type.Union([Type.Literal('pending'), Type.Literal('processing')], {
        description: 'The status the order returned to: the one it was held from.',
      }),
    },
    { additionalProperties: false },
  ),
  'webhook.test': Type.Object({ webhook_id: Uuid(), clinic_id: Uuid(), message: Type.String() }, { additionalProperties: false }),
} satisfies Record<OutboxEventType | typeof TEST_EVENT_TYPE, TObject>;

export type WebhookEventType = keyof typeof EVENT_PAYLOADS;

/** What is sent for an event: `{type, timestamp, data}` (dispatcher.ts eventBody). */
export const WebhookEvent = <T extends TSchema>(type: WebhookEventType, data: T) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time', description: 'When the change happened (not the attempt), ISO-8601 UTC.' }),
      data,
    },
    { additionalProperties: false },
  );
