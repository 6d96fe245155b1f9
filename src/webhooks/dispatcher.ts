import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.js';
import type { OutboxEventTable } from '../events/outbox.tables.js';
import * as deliveries from './delivery.repository.js';
import { nextAttemptAt } from './retry-schedule.js';
import * as endpoints from './webhook.repository.js';
import type { WebhookDeliveryTable } from './webhook.tables.js';

const BATCH = 100;

/**
 * The body of every attempt of an event, serialized once: `{type, timestamp, data}`
 * (Standard Webhooks' payload structure; `timestamp` is when the event happened).
 */
export function eventBody(type: string, timestamp: string, data: unknown): string {
  return JSON.stringify({ type, timestamp, data });
}

/**
 * Fans outbox events out to deliveries: one per event and per endpoint of the event's clinic that
 * existed (active, not deleted) when the event was created. Each batch is one transaction, and
 * events are locked with SKIP LOCKED on PostgreSQL, so several workers can run this at once; the
 * unique (event, endpoint) key makes a repeated fan-out harmless. Returns how many events it handled.
 */
export async function dispatchOutbox(ctx: ServiceContext): Promise<number> {
  let handled = 0;
  for (;;) {
    const count = await ctx.db.transaction().execute(async (trx) => {
      const events = await deliveries.lockUndispatchedEvents(trx, BATCH, ctx.dialect);
      if (events.length === 0) return 0;
      const clinicIds = [...new Set(events.map((e) => e.clinic_id))];
      const live = await endpoints.activeEndpointsOfClinics(trx, clinicIds);
      const now = ctx.clock().toISOString();
      const rows = events.flatMap((event) => {
        // The first attempt is due the schedule's first delay after the event (at once by default), so
        // that deliveries are claimed in the order their events happened.
        const firstDue = nextAttemptAt(ctx.config.webhookRetryScheduleMs, 0, new Date(event.created_at), Math.random());
        return live
          .filter((endpoint) => endpoint.clinic_id === event.clinic_id && endpoint.created_at <= event.created_at)
          .map((endpoint) => newDelivery(event, endpoint.id, now, firstDue?.toISOString() ?? now));
      });
      await deliveries.insertDeliveries(trx, rows);
      await deliveries.markEventsDispatched(
        trx,
        events.map((e) => e.id),
        now,
      );
      return events.length;
    });
    handled += count;
    if (count < BATCH) return handled;
  }
}

function newDelivery(event: OutboxEventTable, endpointId: string, now: string, firstDue: string): WebhookDeliveryTable {
  return {
    id: randomUUID(),
    event_id: event.id,
    event_type: event.type,
    clinic_id: event.clinic_id,
    endpoint_id: endpointId,
    body: eventBody(event.type, event.created_at, JSON.parse(event.payload) as unknown),
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: firstDue,
    claimed_until: null,
    claim_token: null,
    last_attempt_at: null,
    last_response_status: null,
    last_error: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  };
}
