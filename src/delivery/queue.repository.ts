// Over 250 lines: every statement of the delivery queue's claim, lease and result, with each dialect's locking, read together when one changes.
import { sql } from 'kysely';
import type { DbOrTrx, DialectName, Trx } from '../db/database.js';
import { lockRowsInOrder, skipLocked, updateRows } from '../db/dialect.js';
import type { WebhookDeliveryAttemptTable, WebhookDeliveryTable, WebhookEndpointTable } from './webhook.tables.js';
import type { DeliveryOutcomeRow, LaneEndpoint, TakenDelivery } from './types.js';

/**
 * The delivery queue as the worker sees it: each endpoint is a queue of its own that one worker at a
 * time owns (a lease on the endpoint's row), found through `next_due_at`; its deliveries are taken
 * from the (endpoint_id, status, next_attempt_at) index. Unscoped on purpose: the worker serves every
 * clinic. See docs/webhooks.md, "Running the delivery worker".
 *
 * Lock order, which keeps workers and API writes from deadlocking on PostgreSQL: a transaction locks
 * the endpoint rows it will update (`lockEndpoints`, in id order) before it updates existing
 * deliveries; rows it only might take are taken with SKIP LOCKED, which never waits.
 */

const LANE_COLUMNS = [
  'id',
  'url',
  'secret',
  'secret_key_id',
  'previous_secret',
  'previous_secret_key_id',
  'previous_secret_expires_at',
  'status',
  'deleted_at',
  'max_in_flight',
  'max_per_second',
  'failing_since',
] as const satisfies readonly (keyof WebhookEndpointTable)[];

/** Locks endpoint rows in id order until the transaction ends (see the lock order above). */
export async function lockEndpoints(trx: Trx, dialect: DialectName, endpointIds: readonly string[]): Promise<void> {
  await lockRowsInOrder(trx, dialect, 'webhook_endpoints', endpointIds);
}

/**
 * Takes up to `limit` endpoints that have work due, are active, not owned by a live lease and not
 * paused by their receiver, longest waiting first (`next_due_at`): the fairness between endpoints.
 * Leases them to `token` until `until`; while owned, an endpoint's `next_due_at` is its lease's end,
 * so that it is found again if its owner dies. An endpoint still marked with another worker's token
 * was not given up but abandoned (its owner died, or stopped renewing): the deliveries that worker
 * had taken of it are due again now (`takeOverDeliveries`). Returns the endpoints, and how many
 * deliveries were so taken over.
 */
export async function claimEndpoints(
  trx: Trx,
  dialect: DialectName,
  options: { now: string; limit: number; token: string; until: string },
): Promise<{ endpoints: LaneEndpoint[]; takenOver: number }> {
  const { now } = options;
  const picked = await skipLocked(
    trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'lease_token'])
      .where('next_due_at', '<=', now)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
      .where((eb) => eb.or([eb('paused_until', 'is', null), eb('paused_until', '<=', now)]))
      .orderBy('next_due_at')
      .orderBy('id')
      .limit(options.limit),
    dialect,
  ).execute();
  if (picked.length === 0) return { endpoints: [], takenOver: 0 };
  let takenOver = 0;
  for (const { id, lease_token: abandonedBy } of picked) {
    if (abandonedBy !== null && abandonedBy !== options.token)
      takenOver += await takeOverDeliveries(trx, { endpointId: id, abandonedBy, now });
  }
  const endpoints = await trx
    .updateTable('webhook_endpoints')
    .set({ lease_token: options.token, leased_until: options.until, next_due_at: options.until })
    .where(
      'id',
      'in',
      picked.map((p) => p.id),
    )
    .returning(LANE_COLUMNS)
    .execute();
  return { endpoints, takenOver };
}

/**
 * Makes due now the deliveries of an endpoint that a worker which lost the endpoint's lease had taken
 * (`abandonedBy`, its token): those it had not sent yet, and those in flight when it died (sent again,
 * with the same `webhook-id` and body). Their own lease (`claimed_until`) is only a backstop: only an
 * endpoint's owner takes its deliveries, so its lease, renewed at every look, covers them all. Called
 * only when an endpoint is taken over, never on the path of a living worker.
 */
async function takeOverDeliveries(trx: Trx, options: { endpointId: string; abandonedBy: string; now: string }): Promise<number> {
  const result = await trx
    .updateTable('webhook_deliveries')
    .set({ claimed_until: null, claim_token: null, next_attempt_at: options.now })
    .where('endpoint_id', '=', options.endpointId)
    .where('status', '=', 'pending')
    .where('claim_token', '=', options.abandonedBy)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Extends the lease of endpoints `token` owns, and returns them as they are now (settings changed
 * by the partner, deleted or disabled meanwhile). An endpoint missing from the answer is no longer
 * ours: its lease ran out and another worker took it.
 */
export async function renewEndpoints(
  trx: Trx,
  options: { token: string; endpointIds: readonly string[]; until: string },
): Promise<LaneEndpoint[]> {
  if (options.endpointIds.length === 0) return [];
  return trx
    .updateTable('webhook_endpoints')
    .set({ leased_until: options.until, next_due_at: options.until })
    .where('lease_token', '=', options.token)
    .where('id', 'in', [...options.endpointIds])
    .returning(LANE_COLUMNS)
    .execute();
}

/**
 * Gives up ownership of an endpoint (locked by `lockEndpoints` first): its `next_due_at` becomes
 * the due time of its earliest pending delivery (a delivery leased by a dead worker is due when its
 * lease ends), read after the lock so that no delivery committed meanwhile is missed; `pausedUntil`
 * holds it when its receiver asked us to wait.
 */
export async function releaseEndpoint(
  trx: Trx,
  options: { endpointId: string; token: string; pausedUntil: string | null },
): Promise<void> {
  const earliest = trx
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('endpoint_id', '=', options.endpointId)
    .where('status', '=', 'pending');
  await trx
    .updateTable('webhook_endpoints')
    .set({
      lease_token: null,
      leased_until: null,
      next_due_at: earliest,
      ...(options.pausedUntil === null ? {} : { paused_until: options.pausedUntil }),
    })
    .where('id', '=', options.endpointId)
    .where('lease_token', '=', options.token)
    .execute();
}

/**
 * Lowers the `next_due_at` of endpoints to `at` where it is later (or unset): every write that makes
 * a delivery due (fan-out, recovery, an operator's retry) calls it, in its transaction, after
 * locking the endpoint, so that a worker finds the work.
 */
export async function lowerNextDue(db: DbOrTrx, endpointIds: readonly string[], at: string): Promise<void> {
  if (endpointIds.length === 0) return;
  await db
    .updateTable('webhook_endpoints')
    .set({ next_due_at: sql<string>`case when next_due_at is null or next_due_at > ${at} then ${at} else next_due_at end` })
    .where('id', 'in', [...new Set(endpointIds)])
    .execute();
}

/**
 * Recomputes `next_due_at` of every endpoint nobody owns from its pending deliveries (never later
 * than it was): run when a worker starts, after the retry schedule may have moved deliveries.
 */
export async function repairNextDue(db: DbOrTrx, now: string): Promise<void> {
  const earliest = sql<string | null>`(select min(d.next_attempt_at) from webhook_deliveries d
    where d.endpoint_id = webhook_endpoints.id and d.status = 'pending')`;
  await db
    .updateTable('webhook_endpoints')
    .set({
      next_due_at: sql<
        string | null
      >`case when next_due_at is null or ${earliest} < next_due_at then ${earliest} else next_due_at end`,
    })
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
    .execute();
}

/**
 * Takes up to `limit` due deliveries of one endpoint, oldest due first, leased to `token` until
 * `until`; a leased delivery's next attempt is its lease's end, so that it is due again if its taker
 * dies. One statement; rows another worker holds are skipped.
 */
export async function takeDueDeliveries(
  trx: Trx,
  dialect: DialectName,
  options: { endpointId: string; now: string; limit: number; token: string; until: string },
): Promise<TakenDelivery[]> {
  if (options.limit <= 0) return [];
  const due = skipLocked(
    trx
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', options.endpointId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', options.now)
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(options.limit),
    dialect,
  );
  const rows = await trx
    .updateTable('webhook_deliveries')
    .set({ claimed_until: options.until, claim_token: options.token, next_attempt_at: options.until })
    .where('id', 'in', due)
    .returning(['id', 'event_id', 'endpoint_id', 'body', 'attempt_count', 'created_at'])
    .execute();
  // In the order the events happened (RETURNING keeps none).
  return rows.sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
}

/** Hands back deliveries taken but not sent (due at `dueAt`), where the lease is still `token`'s. */
export async function returnDeliveries(
  trx: Trx,
  options: { deliveryIds: readonly string[]; token: string; dueAt: string },
): Promise<void> {
  if (options.deliveryIds.length === 0) return;
  await trx
    .updateTable('webhook_deliveries')
    .set({ claimed_until: null, claim_token: null, next_attempt_at: options.dueAt })
    .where('id', 'in', [...options.deliveryIds])
    .where('claim_token', '=', options.token)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Records a batch of attempts: each delivery's new state where its lease is still the attempt's
 * (`claim_token`) and its status is still `expectedStatus`, then the attempts of the deliveries so
 * updated (two statements on PostgreSQL however many). Returns the ids of the deliveries recorded;
 * for the others, the lease had been taken over or the delivery closed meanwhile.
 */
export async function recordAttempts(
  trx: Trx,
  dialect: DialectName,
  outcomes: readonly { delivery: DeliveryOutcomeRow; expectedStatus: string; attempt: WebhookDeliveryAttemptTable }[],
): Promise<Set<string>> {
  const recorded = new Set(
    await updateRows(trx, dialect, {
      table: 'webhook_deliveries',
      key: 'id',
      guards: { claim_token: 'claim_token', status: 'expected_status' },
      columns: {
        status: 'text',
        attempt_count: 'integer',
        next_attempt_at: 'text',
        last_attempt_at: 'text',
        last_response_status: 'integer',
        last_error: 'text',
        delivered_at: 'text',
        updated_at: 'text',
      },
      fixed: { claimed_until: null, claim_token: null },
      rows: outcomes.map(({ delivery, expectedStatus }) => ({ ...delivery, expected_status: expectedStatus })),
    }),
  );
  const attempts = outcomes.filter((o) => recorded.has(o.delivery.id)).map((o) => o.attempt);
  for (let i = 0; i < attempts.length; i += 200) {
    await trx
      .insertInto('webhook_delivery_attempts')
      .values(attempts.slice(i, i + 200))
      .execute();
  }
  return recorded;
}

/** The status of deliveries still leased to their attempt's token (those `recordAttempts` left). */
export async function statusOfLeased(
  db: DbOrTrx,
  leases: readonly { id: string; token: string }[],
): Promise<Map<string, WebhookDeliveryTable['status']>> {
  if (leases.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'claim_token', 'status'])
    .where(
      'id',
      'in',
      leases.map((l) => l.id),
    )
    .execute();
  const tokens = new Map(leases.map((l) => [l.id, l.token]));
  return new Map(rows.filter((r) => r.claim_token !== null && r.claim_token === tokens.get(r.id)).map((r) => [r.id, r.status]));
}

/**
 * When the worker should look again at the earliest: the soonest moment an endpoint with work
 * becomes claimable (its work due, its pause over, its owner's lease ended), or null.
 */
export async function earliestClaimable(db: DbOrTrx): Promise<string | null> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(
      sql<string | null>`min(case
        when coalesce(paused_until, '') > next_due_at and coalesce(paused_until, '') >= coalesce(leased_until, '') then paused_until
        when coalesce(leased_until, '') > next_due_at then leased_until
        else next_due_at end)`.as('at'),
    )
    .where('next_due_at', 'is not', null)
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.at ?? null;
}

/** Holds an endpoint until `until` (its receiver asked us to wait), unless it is held longer already. */
export async function pauseEndpoint(db: DbOrTrx, endpointId: string, until: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({
      paused_until: sql<string>`case when paused_until is null or paused_until < ${until} then ${until} else paused_until end`,
    })
    .where('id', '=', endpointId)
    .execute();
}
