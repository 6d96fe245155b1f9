/**
 * Event types partners can receive. `order.*` and `refill.ready` come from order changes;
 * `webhook.test` only from the test call.
 */
export const EVENT_TYPES = [
  'order.created',
  'order.fulfilled',
  'order.delivered',
  'order.cancelled',
  'refill.ready',
  'order.on_hold',
  'order.resumed',
  'shipment.updated',
] as const;

export type OutboxEventType = (typeof EVENT_TYPES)[number];

/** The event type of a partner's test call (`POST /api/external/webhook/test`): in the delivery log, never in the outbox. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** An event a change records (changes/run-change.ts), for delivery to the clinic's webhooks. */
export interface NewOutboxEvent {
  clinicId: string;
  type: OutboxEventType;
  /** Ids and statuses only: this reaches partners' webhooks and must never hold PHI. */
  payload: Record<string, unknown>;
}
