import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { newId } from '../shared/ids.js';
import type { OutboxEventTable } from '../events/outbox.tables.js';
import { storedEventBody } from '../events/event-body.js';
import * as deliveries from './delivery.repository.js';
import { lockEndpoints, lowerNextDue } from './queue.repository.js';
import { nextAttemptAt } from './retry-schedule.js';
import * as endpoints from './endpoints.repository.js';
import { eventTypeTest } from '../events/event-type-filter.js';
import type { WebhookDeliveryTable } from './webhook.tables.js';

/** Outbox events fanned out per look at the queue. */
export const FAN_OUT_BATCH = 200;

/** A fan-out read and decided, not yet written: the endpoints it will touch must be locked first. */
export interface FanOut {
  eventIds: string[];
  rows: WebhookDeliveryTable[];
  /** The endpoints that get deliveries (to lock, then to wake). */
  endpointIds: string[];
}

/**
 * Reads the oldest outbox events not yet fanned out (locked against other workers with SKIP LOCKED)
 * and decides their deliveries: one per event and per endpoint of the event's clinic that existed
 * (active, not deleted) when the event was created and receives the event's type (its `event_types`:
 * null for every type; each endpoint's list is parsed once per batch).
 */
export async function planFanOut(trx: Trx, ctx: ServiceContext, limit = FAN_OUT_BATCH): Promise<FanOut> {
  const events = await deliveries.lockUndispatchedEvents(trx, limit, ctx.dialect);
  if (events.length === 0) return { eventIds: [], rows: [], endpointIds: [] };
  const live = (await endpoints.activeEndpointsOfClinics(trx, [...new Set(events.map((e) => e.clinic_id))])).map((endpoint) => ({
    ...endpoint,
    receives: eventTypeTest(endpoint.event_types),
  }));
  const now = ctx.clock().toISOString();
  const rows = events.flatMap((event) => {
    // The first attempt is due the schedule's first delay after the event (at once by default), so
    // that deliveries are claimed in the order their events happened.
    const firstDue = nextAttemptAt(ctx.config.webhookRetryScheduleMs, 0, new Date(event.created_at), Math.random());
    return live
      .filter(
        (endpoint) =>
          endpoint.clinic_id === event.clinic_id && endpoint.created_at <= event.created_at && endpoint.receives(event.type),
      )
      .map((endpoint) => newDelivery(event, endpoint.id, now, firstDue?.toISOString() ?? now));
  });
  return { eventIds: events.map((e) => e.id), rows, endpointIds: [...new Set(rows.map((r) => r.endpoint_id))] };
}

/**
 * Writes a planned fan-out (its endpoints locked): the deliveries (the unique (event, endpoint) key
 * makes a repeated fan-out harmless), the events marked dispatched, and the endpoints told that
 * work is due.
 */
export async function applyFanOut(trx: Trx, ctx: ServiceContext, plan: FanOut): Promise<void> {
  if (plan.eventIds.length === 0) return;
  await deliveries.insertDeliveries(trx, plan.rows);
  await deliveries.markEventsDispatched(trx, plan.eventIds, ctx.clock().toISOString());
  const firstDue = plan.rows.reduce<string | null>(
    (min, r) => (min === null || (r.next_attempt_at ?? min) < min ? r.next_attempt_at : min),
    null,
  );
  if (firstDue !== null) await lowerNextDue(trx, plan.endpointIds, firstDue);
}

/**
 * Fans out every waiting outbox event, a batch per transaction, without sending anything (the
 * operator's tools and tests; the worker fans out within its own look at the queue). Returns how
 * many events it handled.
 */
export async function dispatchOutbox(ctx: ServiceContext): Promise<number> {
  let handled = 0;
  for (;;) {
    const count = await ctx.db.transaction().execute(async (trx) => {
      const plan = await planFanOut(trx, ctx);
      await lockEndpoints(trx, ctx.dialect, plan.endpointIds);
      await applyFanOut(trx, ctx, plan);
      return plan.eventIds.length;
    });
    handled += count;
    if (count < FAN_OUT_BATCH) return handled;
  }
}

function newDelivery(event: OutboxEventTable, endpointId: string, now: string, firstDue: string): WebhookDeliveryTable {
  return {
    id: newId(),
    event_id: event.id,
    event_type: event.type,
    clinic_id: event.clinic_id,
    endpoint_id: endpointId,
    // The body of every attempt of the event, serialized once (events/event-body.ts).
    body: JSON.stringify(storedEventBody(event)),
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
