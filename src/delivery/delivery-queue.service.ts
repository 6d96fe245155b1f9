import type { ServiceContext } from '../context.js';
import type { Trx } from '../db/database.js';
import * as deliveries from './delivery.repository.js';
import { planOutcome } from './delivery.service.js';
import { applyFanOut, FAN_OUT_BATCH, planFanOut } from './dispatcher.js';
import * as queue from './queue.repository.js';
import type { ClaimedDelivery, ExchangeRequest, ExchangeResult, FinishedAttempt, LaneUpdate, RecordedAttempt } from './types.js';
import { DISABLE_AFTER_MS } from './retry-schedule.js';
import * as endpoints from './endpoints.repository.js';

/**
 * The worker's one transaction per look at the queue (`exchange`): fan out new events, record the
 * attempts that finished, keep the endpoints it owns (their new settings, more of their due
 * deliveries), give up those with nothing left, and take on endpoints with work waiting. A worker
 * makes one such transaction however many attempts finished since the last, so recording costs a
 * transaction per batch, not two per attempt. See docs/webhooks.md, "Running the delivery worker".
 */

/** How many deliveries a look took, for lanes owned and endpoints taken on together. */
export const takenCount = (result: ExchangeResult): number =>
  result.claimed.reduce((n, c) => n + c.taken.length, 0) + [...result.lanes.values()].reduce((n, l) => n + l.taken.length, 0);

export async function exchange(ctx: ServiceContext, request: ExchangeRequest): Promise<ExchangeResult> {
  const nowDate = ctx.clock();
  const now = nowDate.toISOString();
  const endpointUntil = new Date(nowDate.getTime() + request.endpointLeaseMs).toISOString();
  const deliveryUntil = new Date(nowDate.getTime() + request.deliveryLeaseMs).toISOString();
  // A second's margin for the recording after the attempt's timeout.
  const startBy = nowDate.getTime() + request.deliveryLeaseMs - ctx.config.webhookTimeoutMs - 1000;
  const take = (trx: Trx, endpointId: string, limit: number) =>
    queue
      .takeDueDeliveries(trx, ctx.dialect, { endpointId, now, limit, token: request.token, until: deliveryUntil })
      .then((rows) => rows.map((row): ClaimedDelivery => ({ ...row, token: request.token, startBy })));

  return ctx.db.transaction().execute(async (trx) => {
    const fanOut = request.fanOut ? await planFanOut(trx, ctx, FAN_OUT_BATCH) : null;
    const kept = request.lanes.filter((l) => l.release !== 'now');
    const renew = () =>
      queue.renewEndpoints(trx, { token: request.token, endpointIds: kept.map((l) => l.endpointId), until: endpointUntil });
    // Endpoint rows first, in id order (the lock order above). When the only row this look writes is
    // one owned endpoint's, renewing its lease locks it: one round trip fewer on PostgreSQL.
    const touched = new Set([
      ...(fanOut?.endpointIds ?? []),
      ...request.lanes.map((l) => l.endpointId),
      ...request.finished.map((f) => f.delivery.endpoint_id),
    ]);
    const renewFirst = touched.size === 1 && kept.length === 1;
    const renewed = renewFirst ? await renew() : null;
    if (!renewFirst) await queue.lockEndpoints(trx, ctx.dialect, [...touched]);
    if (fanOut) await applyFanOut(trx, ctx, fanOut);
    const knownHealthy = new Set(request.lanes.filter((l) => l.healthy).map((l) => l.endpointId));
    const { recorded, paused } = await recordFinished(trx, ctx, request.finished, knownHealthy);

    const lanes = new Map<string, LaneUpdate>();
    const current = new Map((renewed ?? (await renew())).map((e) => [e.id, e]));
    for (const lane of request.lanes) {
      const endpoint = current.get(lane.endpointId) ?? null;
      const usable =
        endpoint !== null && endpoint.status === 'active' && endpoint.deleted_at === null && !paused.has(lane.endpointId);
      const taken = usable && lane.release !== 'now' ? await take(trx, lane.endpointId, lane.want) : [];
      await queue.returnDeliveries(trx, { deliveryIds: lane.handBack, token: request.token, dueAt: now });
      const giveUp = lane.release === 'now' || (lane.release === 'idle' && taken.length === 0) || endpoint === null;
      if (giveUp) await queue.releaseEndpoint(trx, { endpointId: lane.endpointId, token: request.token, pausedUntil: null });
      lanes.set(lane.endpointId, { endpoint: giveUp ? null : endpoint, taken });
    }

    const claimed: ExchangeResult['claimed'] = [];
    let takenOver = 0;
    if (request.newLanes > 0) {
      const fresh = await queue.claimEndpoints(trx, ctx.dialect, {
        now,
        limit: request.newLanes,
        token: request.token,
        until: endpointUntil,
      });
      takenOver = fresh.takenOver;
      for (const endpoint of fresh.endpoints) {
        const taken = await take(trx, endpoint.id, request.wantOf(endpoint));
        // Found through a `next_due_at` that was early (a hint): give it back with the exact one.
        if (taken.length === 0)
          await queue.releaseEndpoint(trx, { endpointId: endpoint.id, token: request.token, pausedUntil: null });
        else claimed.push({ endpoint, taken });
      }
    }
    return { recorded, lanes, claimed, fannedOut: fanOut?.eventIds.length ?? 0, paused, takenOver };
  });
}

/**
 * Records finished attempts (their endpoints locked), then moves each endpoint's health on: a
 * success ends its failure streak, a failure starts one, an endpoint failing for DISABLE_AFTER_MS
 * or answering 410 Gone is disabled and its pending deliveries fail. Throttles and failures on our
 * side are not held against an endpoint; a throttle pauses it.
 */
async function recordFinished(
  trx: Trx,
  ctx: ServiceContext,
  finished: readonly FinishedAttempt[],
  knownHealthy: ReadonlySet<string>,
): Promise<{ recorded: RecordedAttempt[]; paused: Map<string, string> }> {
  const paused = new Map<string, string>();
  if (finished.length === 0) return { recorded: [], paused };
  const plans = finished.map((f) => ({ finished: f, plan: planOutcome(ctx.config.webhookRetryScheduleMs, f, Math.random()) }));
  const ok = await queue.recordAttempts(
    trx,
    ctx.dialect,
    plans.map(({ plan }) => ({ ...plan, expectedStatus: 'pending' })),
  );
  // Closed while in flight (the endpoint was deleted or disabled): the attempt is recorded, the
  // status kept, unless it was delivered (that is the truth whatever happened meanwhile).
  const closed = await queue.statusOfLeased(
    trx,
    plans
      .filter(({ plan }) => !ok.has(plan.delivery.id))
      .map(({ finished: f }) => ({ id: f.delivery.id, token: f.delivery.token })),
  );
  const reclosed = await queue.recordAttempts(
    trx,
    ctx.dialect,
    plans.flatMap(({ plan }) => {
      const status = closed.get(plan.delivery.id);
      if (status === undefined) return [];
      const delivered = plan.delivery.status === 'delivered';
      const delivery = { ...plan.delivery, status: delivered ? plan.delivery.status : status, next_attempt_at: null };
      return [{ delivery, attempt: plan.attempt, expectedStatus: status }];
    }),
  );

  const results = new Map<string, RecordedAttempt>();
  for (const { finished: f, plan } of plans) {
    const written = ok.has(f.delivery.id) || reclosed.has(f.delivery.id);
    results.set(f.delivery.id, {
      deliveryId: f.delivery.id,
      eventId: f.delivery.event_id,
      endpointId: f.delivery.endpoint_id,
      attemptNumber: plan.attempt.attempt_number,
      outcome: f.outcome,
      status: written ? plan.delivery.status : null,
      nextAttemptAt: written ? plan.delivery.next_attempt_at : null,
      throttled: plan.pausedUntil !== null,
      pausedUntil: plan.pausedUntil?.toISOString() ?? null,
      endpointDisabled: false,
      ...(f.endpointAtFault ? {} : { secretUnavailable: f.outcome.error ?? 'not sent' }),
    });
    if (written && plan.pausedUntil !== null) {
      const until = plan.pausedUntil.toISOString();
      if ((paused.get(f.delivery.endpoint_id) ?? '') < until) paused.set(f.delivery.endpoint_id, until);
    }
  }
  for (const [endpointId, until] of paused) await queue.pauseEndpoint(trx, endpointId, until);

  // Throttles, and failures on our side, say nothing of the endpoint's health.
  const byEndpoint = new Map<string, FinishedAttempt[]>();
  for (const { finished: f, plan } of plans) {
    if (results.get(f.delivery.id)?.status === null || plan.pausedUntil !== null || !f.endpointAtFault) continue;
    const list = byEndpoint.get(f.delivery.endpoint_id) ?? [];
    list.push(f);
    byEndpoint.set(f.delivery.endpoint_id, list);
  }
  for (const [endpointId, attempts] of byEndpoint) {
    const disabled = await moveHealth(trx, endpointId, attempts, knownHealthy.has(endpointId));
    if (!disabled) continue;
    for (const f of attempts) {
      const result = results.get(f.delivery.id);
      if (!result) continue;
      result.endpointDisabled = true;
      if (result.status === 'pending') {
        result.status = 'failed';
        result.nextAttemptAt = null;
      }
    }
  }
  return { recorded: [...results.values()], paused };
}

/** One endpoint's health after a batch of its attempts (in the order made); true when it was disabled now. */
async function moveHealth(trx: Trx, endpointId: string, attempts: FinishedAttempt[], knownHealthy: boolean): Promise<boolean> {
  const ordered = [...attempts].sort((a, b) => a.attemptedAt.getTime() - b.attemptedAt.getTime());
  let lastSuccess = -1;
  ordered.forEach((a, i) => {
    if (a.outcome.ok) lastSuccess = i;
  });
  const failures = ordered.slice(lastSuccess + 1);
  // Only its owner records an endpoint's attempts, so what the owner last read of its health holds.
  if (lastSuccess >= 0 && !knownHealthy) await endpoints.markEndpointHealthy(trx, endpointId);
  const first = failures[0];
  if (first === undefined) return false;
  const last = failures[failures.length - 1] ?? first;
  const failingSince = await endpoints.markEndpointFailing(trx, endpointId, first.attemptedAt.toISOString());
  const reason = failures.some((a) => a.outcome.statusCode === 410)
    ? 'the endpoint answered 410 Gone'
    : failingSince !== null && last.attemptedAt.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS
      ? `every attempt has failed since ${failingSince}`
      : null;
  if (reason === null) return false;
  const at = last.attemptedAt.toISOString();
  if (!(await endpoints.disableEndpoint(trx, endpointId, at, reason))) return false;
  await deliveries.closePendingOfEndpoint(trx, endpointId, 'failed', at, `endpoint disabled: ${reason}`);
  return true;
}
