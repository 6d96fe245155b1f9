/**
 * Event types partners can receive. `order.*` and `refill.ready` come from order changes;
 * `webhook.test` only from the test call.
 */
export const EVENT_TYPES = ['order.created', 'order.fulfilled', 'order.delivered', 'order.cancelled', 'refill.ready'] as const;

export type OutboxEventType = (typeof EVENT_TYPES)[number];
