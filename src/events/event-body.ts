import type { OutboxEventTable } from './outbox.tables.js';

/**
 * The body of an event, `{type, timestamp, data}` (Standard Webhooks' payload structure; `timestamp`
 * is when the event happened): what every webhook delivery of the event carries
 * (delivery/dispatcher.ts, serialized once per event) and what the event log lists with the event's
 * id (event-log.service.ts). One builder, so that the two never differ.
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 */
export interface EventBody {
  type: string;
  timestamp: string;
  data: unknown;
}

export const eventBody = (type: string, timestamp: string, data: unknown): EventBody => ({ type, timestamp, data });

/** The body of an outbox event as stored: its payload is the data, its creation the timestamp. */
export const storedEventBody = (event: Pick<OutboxEventTable, 'type' | 'created_at' | 'payload'>): EventBody =>
  eventBody(event.type, event.created_at, JSON.parse(event.payload) as unknown);
