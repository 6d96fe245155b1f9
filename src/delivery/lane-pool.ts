import type { AppContext, KeyringContext, ServiceContext } from '../context.js';
import { exchange } from './delivery-queue.service.js';
import { notSent, sendSigned } from './delivery.service.js';
import { EndpointLane, laneCapacity } from './endpoint-lane.js';
import { MAX_IN_FLIGHT } from './endpoint-limits.js';
import type { ExchangeRequest, ExchangeResult, FinishedAttempt, WebhookSender, WorkerLogger } from './types.js';

/** Endpoints taken on per look at the queue at most. */
const CLAIM_BATCH = 16;

/**
 * The endpoints a worker owns (one lane each) and the attempts under way: what may start now, what
 * to ask of the next look at the queue, and the attempts finished since the last one. No database
 * of its own: the worker hands its requests to `exchange` and the answer back to `apply`.
 */
export class LanePool {
  readonly lanes = new Map<string, EndpointLane>();
  /** Attempts made and not yet recorded. */
  readonly finished: FinishedAttempt[] = [];
  readonly attempts = new Set<Promise<void>>();
  /** What each lane asked of the look under way. */
  private asked = new Map<string, number>();

  private readonly sender: WebhookSender;
  private readonly limits: { concurrency: number; maxEndpoints: number };
  private readonly log: WorkerLogger;

  constructor(
    private readonly ctx: Pick<AppContext, 'clock' | 'metrics'> & KeyringContext,
    settings: { sender: WebhookSender; limits: { concurrency: number; maxEndpoints: number }; log: WorkerLogger },
    /** Called after each attempt, once its lane's slot is free again. */
    private readonly onSettled: () => void,
  ) {
    ({ sender: this.sender, limits: this.limits, log: this.log } = settings);
  }

  /**
   * One look at the queue for these lanes (`exchange`): records what finished, asks for what each
   * lane lacks and for `newLanes` more endpoints (`stopping`: hands everything back), and takes the
   * answer. If the look fails, what finished is kept for the next one.
   */
  async look(
    ctx: ServiceContext,
    request: Pick<ExchangeRequest, 'token' | 'endpointLeaseMs' | 'deliveryLeaseMs' | 'newLanes' | 'fanOut'> & {
      stopping: boolean;
    },
  ): Promise<ExchangeResult> {
    // The leases this look renews run from before it starts, at the latest (the exchange's own clock).
    const heldUntil = this.ctx.clock().getTime() + request.endpointLeaseMs;
    const finished = this.finished.splice(0);
    const lanes = [...this.lanes.values()].map((lane) => lane.request(request.stopping));
    this.asked = new Map(lanes.map((r) => [r.endpointId, r.want]));
    try {
      const result = await exchange(ctx, { ...request, finished, lanes, wantOf: laneCapacity });
      this.apply(result, heldUntil);
      return result;
    } catch (error) {
      // Should no look ever succeed, their leases end and they are sent again.
      this.finished.unshift(...finished);
      throw error;
    }
  }

  /**
   * How many more endpoints to take on: each owned one has its `max_in_flight` of the worker's
   * concurrency set aside, so that a stalled endpoint never takes another's slots, and workers
   * sharing a database spread the endpoints between them instead of the first taking them all.
   */
  room(): number {
    let reserved = 0;
    for (const lane of this.lanes.values()) reserved += lane.endpoint.max_in_flight;
    const free = Math.ceil((this.limits.concurrency - reserved) / MAX_IN_FLIGHT.default);
    return Math.max(0, Math.min(CLAIM_BATCH, this.limits.maxEndpoints - this.lanes.size, free));
  }

  /** Takes a look's answer: new settings, deliveries taken, endpoints taken on, given up or paused. */
  private apply(result: ExchangeResult, heldUntil: number): void {
    const now = this.ctx.clock().getTime();
    for (const [id, update] of result.lanes) {
      const lane = this.lanes.get(id);
      if (!lane) continue;
      lane.update(update.endpoint, now);
      lane.heldUntil = heldUntil;
      lane.receive(update.taken, this.asked.get(id) ?? 0);
      if (update.endpoint === null && lane.inFlight === 0) this.lanes.delete(id);
    }
    for (const { endpoint, taken } of result.claimed) {
      const lane = new EndpointLane(endpoint, this.ctx.keyring, now, heldUntil);
      lane.receive(taken, laneCapacity(endpoint));
      this.lanes.set(endpoint.id, lane);
    }
    // A failure held against an endpoint starts its streak: until the next look reads it, assume so.
    for (const attempt of result.recorded) {
      const lane = this.lanes.get(attempt.endpointId);
      const atFault = !attempt.outcome.ok && !attempt.throttled && attempt.secretUnavailable === undefined;
      if (lane && atFault && attempt.status !== null)
        lane.endpoint = { ...lane.endpoint, failing_since: lane.endpoint.failing_since ?? 'unknown' };
    }
    for (const [id, until] of result.paused) {
      const lane = this.lanes.get(id);
      if (lane) lane.pausedUntil = Date.parse(until);
    }
  }

  /** New events: every lane may find more than its last look did. */
  refresh(): void {
    for (const lane of this.lanes.values()) lane.dry = false;
  }

  /** Whether a look is needed now: a lane runs low on deliveries, or has nothing left to send. */
  wantsLook(): boolean {
    return [...this.lanes.values()].some((lane) => lane.wantsMore() || lane.idle());
  }

  /** How long (ms) until a pause or a per-second limit lets a waiting delivery go (Infinity: none waits so). */
  nextWaitMs(now: number): number {
    let wait = Infinity;
    for (const lane of this.lanes.values()) {
      wait = Math.min(wait, lane.pausedUntil !== null ? lane.pausedUntil - now : lane.heldBackFor(now));
    }
    return wait;
  }

  /** Whether a delivery taken waits to be sent. */
  holdsDeliveries(): boolean {
    return [...this.lanes.values()].some((lane) => lane.buffer.length > 0);
  }

  /** Starts what the lanes allow, round-robin across endpoints, within the worker's concurrency. */
  pump(): void {
    const { concurrency } = this.limits;
    let started = true;
    while (started && this.attempts.size < concurrency) {
      started = false;
      const now = this.ctx.clock().getTime();
      for (const lane of this.lanes.values()) {
        if (this.attempts.size >= concurrency || !lane.canStart(now)) continue;
        this.send(lane, now);
        started = true;
      }
    }
  }

  private send(lane: EndpointLane, now: number): void {
    const delivery = lane.start(now);
    if (!delivery) return;
    const secret = lane.secret;
    const attempt = (
      'value' in secret
        ? sendSigned(this.ctx, this.sender, lane.endpoint.url, secret.value, delivery.event_id, delivery.body)
        : Promise.resolve({ attemptedAt: this.ctx.clock(), outcome: notSent(secret.unavailable) })
    ).then(({ attemptedAt, outcome }) => {
      this.ctx.metrics.webhookAttempts.inc({ outcome: outcome.kind });
      this.ctx.metrics.webhookAttemptDuration.observe({ outcome: outcome.kind }, outcome.durationMs / 1000);
      this.finished.push({ delivery, attemptedAt, outcome, endpointAtFault: 'value' in secret });
    });
    // Unexpected (the sender answers every failure as an outcome): the lease ends, and it is sent again.
    const done = attempt
      .catch((error: unknown) => this.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        lane.inFlight -= 1;
        this.attempts.delete(done);
        this.onSettled();
      });
    this.attempts.add(done);
  }
}
