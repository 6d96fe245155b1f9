import type { Selectable } from 'kysely';
import type { DbOrTrx, DialectName, Trx } from '../db/database.js';
import { forUpdate, plusMs, skipLocked } from '../db/dialect.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { OutboxEventTable } from '../events/outbox.tables.js';
import type { DeliveryStatus, WebhookDeliveryAttemptTable, WebhookDeliveryTable } from './webhook.tables.js';

/**
 * Deliveries and attempts. The worker's queries are unscoped on purpose (it serves every clinic);
 * on PostgreSQL they lock with SKIP LOCKED so that several workers share the work without overlap.
 */

const INSERT_CHUNK = 200;

// ---- fan-out (dispatcher) ----

/** The oldest outbox events not yet fanned out, locked against other dispatchers. */
export async function lockUndispatchedEvents(trx: Trx, limit: number, dialect: DialectName): Promise<OutboxEventTable[]> {
  return skipLocked(
    trx
      .selectFrom('outbox_events')
      .selectAll()
      .where('dispatched_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit),
    dialect,
  ).execute();
}

export async function markEventsDispatched(trx: Trx, eventIds: string[], now: string): Promise<void> {
  if (eventIds.length === 0) return;
  await trx.updateTable('outbox_events').set({ dispatched_at: now }).where('id', 'in', eventIds).execute();
}

/** Inserts deliveries; one that exists for the same event and endpoint is left as it is. */
export async function insertDeliveries(db: DbOrTrx, rows: WebhookDeliveryTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
      .execute();
  }
}

// ---- single deliveries (operator, test call) ----

export async function findDeliveryForUpdate(
  trx: Trx,
  deliveryId: string,
  dialect: DialectName,
): Promise<WebhookDeliveryTable | undefined> {
  return forUpdate(trx.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId), dialect).executeTakeFirst();
}

export async function insertDelivery(db: DbOrTrx, row: WebhookDeliveryTable): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

export async function updateDelivery(db: DbOrTrx, deliveryId: string, patch: Partial<WebhookDeliveryTable>): Promise<void> {
  await db.updateTable('webhook_deliveries').set(patch).where('id', '=', deliveryId).execute();
}

export async function insertAttempt(db: DbOrTrx, row: WebhookDeliveryAttemptTable): Promise<void> {
  await db.insertInto('webhook_delivery_attempts').values(row).execute();
}

/** Ends every pending delivery of an endpoint (deleted: cancelled; disabled: failed). */
export async function closePendingOfEndpoint(
  db: DbOrTrx,
  endpointId: string,
  status: Extract<DeliveryStatus, 'cancelled' | 'failed'>,
  now: string,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status, next_attempt_at: null, last_error: reason, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Operator: puts every failed delivery of an endpoint back in the queue, due now. */
export async function requeueFailedOfEndpoint(db: DbOrTrx, endpointId: string, now: string): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, claimed_until: null, claim_token: null, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Recovery (operator or partner, after an outage): every delivery of an endpoint created since
 * `since` that has failed or is waiting for an attempt is made due now. Deliveries in flight (leased)
 * are left to finish, delivered and cancelled ones are not touched, and test calls (never retried) are
 * left out. One statement on the (endpoint_id, status) index; the caller bounds `since` (7 days).
 * Returns how many deliveries were scheduled.
 */
export async function scheduleRecovery(
  db: DbOrTrx,
  options: { endpointId: string; since: string; now: string; excludeEventType: string },
): Promise<number> {
  const { now } = options;
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, claimed_until: null, claim_token: null, updated_at: now })
    .where('endpoint_id', '=', options.endpointId)
    .where('status', 'in', ['pending', 'failed'])
    .where('created_at', '>=', options.since)
    .where('event_type', '<>', options.excludeEventType)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Applies a retry schedule to the deliveries waiting for their retry number `attemptCount + 1` (with
 * `orMore`: for that many attempts made or more): their next attempt becomes `delayMs` after their
 * last attempt, unless it already lies within [lowMs, highMs] of it (the delay with its jitter:
 * then the schedule has not changed for them and their jitter is kept). Only deliveries not yet due
 * are moved: one due already (an operator's retry or a recovery made it due now) is attempted as it
 * is. Leased deliveries are left to their worker, which records their outcome under the current
 * schedule.
 * One statement per attempt number, on the (status, next_attempt_at) index. Returns how many moved.
 */
export async function rescheduleWaiting(
  db: DbOrTrx,
  dialect: DialectName,
  options: { attemptCount: number; orMore: boolean; delayMs: number; lowMs: number; highMs: number; now: string },
): Promise<number> {
  const { now } = options;
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: plusMs(dialect, 'last_attempt_at', options.delayMs) })
    .where('status', '=', 'pending')
    .where('attempt_count', options.orMore ? '>=' : '=', options.attemptCount)
    .where('last_attempt_at', 'is not', null)
    .where('next_attempt_at', '>', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .where((eb) =>
      eb.or([
        eb('next_attempt_at', '<', plusMs(dialect, 'last_attempt_at', options.lowMs)),
        eb('next_attempt_at', '>', plusMs(dialect, 'last_attempt_at', options.highMs)),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// ---- operator reads ----

export type DeliveryWithUrl = Selectable<WebhookDeliveryTable> & { url: string };

export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  clinicId?: string | undefined;
  eventType?: string | undefined;
  endpointId?: string | undefined;
  /** Only deliveries created at or after this time (stored form). */
  createdSince?: string | undefined;
  /** Only deliveries created before this time (stored form). */
  createdUntil?: string | undefined;
  /** Only deliveries older than this position. */
  before?: PagePosition | undefined;
}

/** A page of deliveries, newest first, with their endpoint's URL (one query). */
export async function listDeliveries(db: DbOrTrx, filter: DeliveryFilter, limit: number): Promise<DeliveryWithUrl[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.url');
  if (filter.status) query = query.where('d.status', '=', filter.status);
  if (filter.clinicId) query = query.where('d.clinic_id', '=', filter.clinicId);
  if (filter.eventType) query = query.where('d.event_type', '=', filter.eventType);
  if (filter.endpointId) query = query.where('d.endpoint_id', '=', filter.endpointId);
  if (filter.createdSince) query = query.where('d.created_at', '>=', filter.createdSince);
  if (filter.createdUntil) query = query.where('d.created_at', '<', filter.createdUntil);
  if (filter.before) query = query.where(olderThan({ createdAt: 'd.created_at', id: 'd.id' }, filter.before));
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

/** The partner's delivery log: one clinic's deliveries only, whatever the filter says. */
export async function listDeliveriesOfClinic(
  db: DbOrTrx,
  clinicId: string,
  filter: Omit<DeliveryFilter, 'clinicId'>,
  limit: number,
): Promise<DeliveryWithUrl[]> {
  return listDeliveries(db, { ...filter, clinicId }, limit);
}

export async function findDeliveryWithUrl(db: DbOrTrx, deliveryId: string): Promise<DeliveryWithUrl | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.url')
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

export async function listAttempts(db: DbOrTrx, deliveryId: string): Promise<WebhookDeliveryAttemptTable[]> {
  return db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt_number')
    .execute();
}

/** The attempts of several deliveries (one query on the (delivery_id, attempt_number) key), first first. */
export async function listAttemptsOfDeliveries(db: DbOrTrx, deliveryIds: string[]): Promise<WebhookDeliveryAttemptTable[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt_number')
    .execute();
}
