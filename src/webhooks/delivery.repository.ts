import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { DbOrTrx, DialectName, Trx } from '../db/database.js';
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
  return trx
    .selectFrom('outbox_events')
    .selectAll()
    .where('dispatched_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
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

// ---- claiming and recording (worker) ----

export type DueDelivery = Pick<WebhookDeliveryTable, 'id' | 'event_id' | 'endpoint_id' | 'body' | 'attempt_count'>;

/**
 * Pending deliveries whose next attempt is due and that nobody holds a lease on, oldest due first,
 * locked against other workers until the claim commits. Deliveries of an endpoint that already has
 * `perEndpointLimit` leased deliveries (by any worker) are left out, so that one busy endpoint's
 * backlog does not fill the batch; the claim counts again under the endpoint's lock (see
 * `lockEndpointClaims`), as this look is not atomic.
 */
export async function lockDueDeliveries(
  trx: Trx,
  options: { now: string; limit: number; perEndpointLimit: number; dialect: DialectName },
): Promise<DueDelivery[]> {
  return trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'endpoint_id', 'body', 'attempt_count'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', options.now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', options.now)]))
    .where('endpoint_id', 'not in', (eb) =>
      eb
        .selectFrom('webhook_deliveries as leased')
        .select('leased.endpoint_id')
        .where('leased.status', '=', 'pending')
        .where('leased.claimed_until', '>=', options.now)
        .groupBy('leased.endpoint_id')
        .having((h) => h.fn.countAll(), '>=', options.perEndpointLimit),
    )
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.limit)
    .$if(options.dialect === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
}

/** Names the advisory locks of `lockEndpointClaims` (with the schema: databases shared by several schemas). */
const CLAIM_LOCK = 'partner-fulfillment:webhook-endpoint-claim:';

/**
 * PostgreSQL: takes, until the transaction ends, one advisory lock per endpoint, so that two workers
 * claiming deliveries of one endpoint take turns and the second counts the first's leases (the
 * per-endpoint limit holds across workers and instances). Only claims take these locks, each in the
 * same order (by key), so claims cannot deadlock; a claim waits at most for another claim. Row locks
 * on the endpoints would also make claims wait for (and deadlock with) the recording of attempts,
 * which updates the endpoint's health. SQLite needs none: its transactions run one at a time.
 */
export async function lockEndpointClaims(trx: Trx, endpointIds: string[]): Promise<void> {
  if (endpointIds.length === 0) return;
  // The subquery fixes the order in which the locks are taken (`offset 0` keeps it from being flattened).
  await sql`
    select pg_advisory_xact_lock(k.space, k.key)
    from (
      select distinct hashtext(${CLAIM_LOCK} || current_schema()) as space, hashtext(id) as key
      from unnest(${endpointIds}::text[]) as id
      order by key
      offset 0
    ) as k`.execute(trx);
}

/**
 * How many deliveries of each endpoint are leased now (attempts in flight, whichever worker holds
 * them). A delivery leaves `pending` only when its attempt is recorded (which also ends the lease) or
 * when its endpoint is deleted or disabled (then nothing more is sent to it), so counting pending
 * rows is exact and stays on the (endpoint_id, status) index.
 */
export async function countLeasesByEndpoint(trx: Trx, endpointIds: string[], now: string): Promise<Map<string, number>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', (eb) => eb.fn.countAll<number | string>().as('leased')])
    .where('endpoint_id', 'in', endpointIds)
    .where('status', '=', 'pending')
    .where('claimed_until', '>=', now)
    .groupBy('endpoint_id')
    .execute();
  return new Map(rows.map((r) => [r.endpoint_id, Number(r.leased)]));
}

/** Takes the lease on deliveries: no other worker attempts them before `until`. */
export async function leaseDeliveries(trx: Trx, ids: string[], until: string, token: string): Promise<void> {
  if (ids.length === 0) return;
  await trx.updateTable('webhook_deliveries').set({ claimed_until: until, claim_token: token }).where('id', 'in', ids).execute();
}

/** The earliest time a pending, unleased delivery becomes due (to sleep until then). */
export async function earliestDueTime(db: DbOrTrx, now: string): Promise<string | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .executeTakeFirst();
  return row?.due ?? null;
}

export async function findDeliveryForUpdate(
  trx: Trx,
  deliveryId: string,
  dialect: DialectName,
): Promise<WebhookDeliveryTable | undefined> {
  return trx
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .$if(dialect === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
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

/** `column` (an ISO timestamp) plus `ms` milliseconds, as the same ISO text, in the dialect's SQL. */
function plusMs(dialect: DialectName, column: 'last_attempt_at', ms: number): RawBuilder<string> {
  if (dialect === 'postgres') {
    return sql<string>`to_char((${sql.ref(column)}::timestamptz + ${ms}::double precision * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
  return sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', ${sql.ref(column)}, ${`${(ms / 1000).toFixed(3)} seconds`})`;
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
