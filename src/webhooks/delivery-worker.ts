import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext, EventWriterContext, KeyringContext } from '../context.js';
import { listenForNotifications, type NotificationListener } from '../db/notifications.js';
import { WAKEUP_CHANNEL } from '../events/outbox.js';
import { exchange, type ExchangeResult } from './delivery-queue.service.js';
import { notSent, sendSigned, type FinishedAttempt, type RecordedAttempt } from './delivery.service.js';
import { EndpointLane, laneCapacity } from './endpoint-lane.js';
import { MAX_IN_FLIGHT } from './endpoint-limits.js';
import { createHttpSender, type WebhookSender } from './http-sender.js';
import { earliestClaimable } from './queue.repository.js';
import { prepareQueue } from './reschedule.service.js';
import { urlPolicyOf } from './url-safety.js';

export type WorkerLogger = Pick<FastifyBaseLogger, 'debug' | 'info' | 'warn' | 'error'>;
export type { RecordedAttempt };

/** What the worker runs on: an event writer's context, and the metrics that count its attempts. */
export type WorkerContext = EventWriterContext & KeyringContext & Pick<AppContext, 'metrics'>;

export interface WebhookWorkerOptions {
  /** Attempts in flight at once in this worker, all endpoints together (default 200). */
  concurrency?: number;
  /** Endpoints this worker owns at once at most (default 64). */
  maxEndpoints?: number;
  /** Longest sleep between looks at the queue (default 2 s); events and due retries wake it sooner. */
  pollIntervalMs?: number;
  /** How long a taken delivery is ours (default: (PREFETCH_FACTOR + 1) × the attempt timeout + 30 s). */
  leaseMs?: number;
  /** How long an endpoint is ours without a look at the queue (default 30 s); renewed at every look. */
  endpointLeaseMs?: number;
  /** Defaults to the HTTP sender with the deployment's SSRF policy and timeout. */
  sender?: WebhookSender;
  logger?: WorkerLogger;
}

/** Endpoints taken on per look at the queue at most. */
const CLAIM_BATCH = 16;
/** A busy worker still looks for other endpoints' work this often (a fresh event wakes it at once). */
const CLAIM_INTERVAL_MS = 50;
/**
 * Finished attempts are recorded together: this many, or after this long. Nothing waits on a
 * record but the lease, so the window is longer than Convoy's 2 ms: a look costs about the same for
 * one attempt as for sixty-four (docs/performance.md).
 */
const RECORD_BATCH = 64;
const RECORD_WINDOW_MS = 20;

const silent: WorkerLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The delivery worker, a small scheduler: it decides when to look at the queue, how much to take and
 * when to stop; what a look does is one transaction (`exchange` in delivery-queue.service.ts), and
 * what may start is each owned endpoint's lane (endpoint-lane.ts). Runs in the server (RUN_WORKER)
 * or alone (src/worker.ts); any number share one PostgreSQL database. All state is in the database:
 * a restarted worker resumes where the last stopped (leases left by a crash expire).
 */
export class WebhookWorker {
  private readonly token = randomUUID();
  private readonly concurrency: number;
  private readonly maxEndpoints: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly endpointLeaseMs: number;
  private readonly sender: WebhookSender;
  private readonly ownsSender: boolean;
  private readonly log: WorkerLogger;
  private readonly lanes = new Map<string, EndpointLane>();
  private readonly finished: FinishedAttempt[] = [];
  private readonly attempts = new Set<Promise<void>>();
  private readonly listeners = new Set<(attempt: RecordedAttempt) => void>();
  private idleWaiters: (() => void)[] = [];
  private looking: Promise<ExchangeResult | null> | null = null;
  private again = false;
  /** Why the next look must do more than record and top up: events to fan out, endpoints to look for. */
  private newEvents = true;
  private claimWanted = true;
  private lastClaimAt = 0;
  private soonTimer: NodeJS.Timeout | null = null;
  private prepared = false;
  private started = false;
  private stopped = false;
  private draining = 0;
  /** What the look under way asked for: deliveries per owned endpoint, new endpoints. */
  private asked = new Map<string, number>();
  private newLanes = 0;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private listener: NotificationListener | null = null;

  constructor(
    private readonly ctx: WorkerContext,
    options: WebhookWorkerOptions = {},
  ) {
    const timeoutMs = ctx.config.webhookTimeoutMs;
    this.concurrency = options.concurrency ?? 200;
    this.maxEndpoints = options.maxEndpoints ?? 64;
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.leaseMs = options.leaseMs ?? 5 * timeoutMs + 30_000;
    this.endpointLeaseMs = options.endpointLeaseMs ?? 30_000;
    this.ownsSender = options.sender === undefined;
    this.sender = options.sender ?? createHttpSender({ policy: urlPolicyOf(ctx.config), timeoutMs });
    this.log = options.logger ?? silent;
  }

  /** Creates and starts a worker: it wakes on in-process events, PostgreSQL NOTIFY and its own timer. */
  static async start(ctx: WorkerContext, options: WebhookWorkerOptions = {}): Promise<WebhookWorker> {
    const worker = new WebhookWorker(ctx, options);
    await worker.start();
    return worker;
  }

  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    this.unsubscribe = this.ctx.outbox.subscribe(this.wake);
    this.listener = await listenForNotifications(this.ctx, WAKEUP_CHANNEL, this.wake, (error) =>
      this.log.warn({ err: error }, 'webhook worker: wake-up listener lost; polling meanwhile'),
    );
    this.kick();
  }

  /** Attempts under way now (logged when a shutdown runs out of time). */
  get attemptsInFlight(): number {
    return this.attempts.size;
  }

  /** Stops taking work, waits for the attempts in flight, records them, gives every endpoint back. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clearTimer();
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.soonTimer = null;
    this.unsubscribe?.();
    await this.listener?.close();
    await this.looking;
    await Promise.allSettled(this.attempts);
    await this.look().catch((error: unknown) => this.log.error({ err: error }, 'webhook worker: final look failed'));
    if (this.ownsSender) await this.sender.close();
  }

  /**
   * Works until nothing more can be done now: fans out, attempts what is due, records it. For tests
   * (with a fake clock) and one-shot runs; do not mix with a started worker. What another worker
   * owns, or the per-second limit holds back, is left.
   */
  async drain(): Promise<void> {
    this.draining += 1;
    try {
      for (;;) {
        this.newEvents = true;
        this.claimWanted = true;
        const result = await this.look();
        const moved = result !== null && (result.recorded.length > 0 || result.fannedOut > 0 || taken(result) > 0);
        if (!moved && this.attempts.size === 0 && this.finished.length === 0) return;
        // All of them, so that the next look records them together.
        await Promise.allSettled(this.attempts);
      }
    } finally {
      this.draining -= 1;
      this.settle();
    }
  }

  /** Resolves once nothing is under way: no look, no attempt in flight or waiting to be recorded. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Calls `listener` after each attempt once recorded; returns the function that unsubscribes it. */
  onAttempt(listener: (attempt: RecordedAttempt) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** New events committed (in-process or NOTIFY): look at once. */
  readonly wake = (): void => {
    this.newEvents = true;
    this.claimWanted = true;
    for (const lane of this.lanes.values()) lane.dry = false;
    this.kick();
  };

  /**
   * After an attempt: the slot it frees is used at once if the lane holds more; the look that records
   * it waits for others (RECORD_BATCH of them, or RECORD_WINDOW_MS), unless a lane runs low.
   */
  private lookSoon(): void {
    this.pump();
    if (this.finished.length >= RECORD_BATCH || [...this.lanes.values()].some((l) => l.wantsMore() || l.idle())) {
      this.kick();
      return;
    }
    this.soonTimer ??= setTimeout(() => {
      this.soonTimer = null;
      this.kick();
    }, RECORD_WINDOW_MS);
  }

  /** Looks at the queue now, or right after the look under way. */
  readonly kick = (): void => {
    if (this.stopped || !this.started || this.draining > 0) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    this.clearTimer();
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.soonTimer = null;
    this.look()
      .catch((error: unknown) => {
        this.log.error({ err: error }, 'webhook worker: look at the queue failed; trying again');
        this.plan(this.pollIntervalMs);
      })
      .finally(() => {
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
        this.settle();
      });
  };

  /** One look at the queue (one transaction), then the attempts it allows; one at a time. */
  private async look(): Promise<ExchangeResult | null> {
    while (this.looking) await this.looking;
    const run = this.exchangeOnce();
    this.looking = run;
    try {
      return await run;
    } finally {
      this.looking = null;
    }
  }

  private async exchangeOnce(): Promise<ExchangeResult> {
    if (!this.prepared) {
      await prepareQueue(this.ctx, this.log);
      this.prepared = true;
    }
    const stopping = this.stopped;
    const fanOut = this.newEvents && !stopping;
    this.newEvents = false;
    const finished = this.finished.splice(0);
    const lanes = [...this.lanes.values()].map((lane) => lane.request(stopping));
    this.asked = new Map(lanes.map((l) => [l.endpointId, l.want]));
    const now = this.ctx.clock().getTime();
    const claim = this.claimWanted || now - this.lastClaimAt >= CLAIM_INTERVAL_MS;
    this.newLanes = stopping || !claim ? 0 : this.room();
    if (claim) {
      this.claimWanted = false;
      this.lastClaimAt = now;
    }
    const result = await exchange(this.ctx, {
      token: this.token,
      endpointLeaseMs: this.endpointLeaseMs,
      deliveryLeaseMs: this.leaseMs,
      finished,
      lanes,
      newLanes: this.newLanes,
      wantOf: laneCapacity,
      fanOut,
    }).catch((error: unknown) => {
      // Not recorded: put back, recorded at the next look (or retried once their lease ends).
      this.finished.unshift(...finished);
      throw error;
    });
    this.apply(result);
    if (fanOut && result.fannedOut > 0) this.newEvents = true;
    if (this.newLanes > 0 && result.claimed.length === this.newLanes) this.claimWanted = true;
    this.pump();
    this.schedule(result);
    return result;
  }

  /**
   * How many more endpoints to take on: each owned one has its `max_in_flight` of this worker's
   * concurrency set aside, so that a stalled endpoint never takes another's slots, and workers
   * sharing a database spread the endpoints between them instead of the first taking them all.
   */
  private room(): number {
    let reserved = 0;
    for (const lane of this.lanes.values()) reserved += lane.endpoint.max_in_flight;
    const free = Math.ceil((this.concurrency - reserved) / MAX_IN_FLIGHT.default);
    return Math.max(0, Math.min(CLAIM_BATCH, this.maxEndpoints - this.lanes.size, free));
  }

  private apply(result: ExchangeResult): void {
    for (const attempt of result.recorded) this.report(attempt);
    for (const [id, update] of result.lanes) {
      const lane = this.lanes.get(id);
      if (!lane) continue;
      lane.update(update.endpoint);
      lane.receive(update.taken, this.asked.get(id) ?? 0);
      if (update.endpoint === null && lane.inFlight === 0) this.lanes.delete(id);
    }
    for (const { endpoint, taken: deliveries } of result.claimed) {
      const lane = new EndpointLane(endpoint, this.ctx.keyring);
      lane.receive(deliveries, laneCapacity(endpoint));
      this.lanes.set(endpoint.id, lane);
    }
    for (const [id, until] of result.paused) {
      const lane = this.lanes.get(id);
      if (lane) lane.pausedUntil = Date.parse(until);
    }
  }

  /** Starts what the lanes allow, round-robin across endpoints, within the worker's concurrency. */
  private pump(): void {
    if (this.stopped) return;
    let started = true;
    while (started && this.attempts.size < this.concurrency) {
      started = false;
      const now = this.ctx.clock().getTime();
      for (const lane of this.lanes.values()) {
        if (this.attempts.size >= this.concurrency || !lane.canStart(now)) continue;
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
        this.lookSoon();
      });
    this.attempts.add(done);
  }

  /**
   * Plans the next look: at once while a lane needs more deliveries, has nothing left to give up,
   * or more endpoints or events may be waiting; otherwise when a per-second limit or a pause ends,
   * before the endpoints' leases need renewing, or, owning none, when the next work is due (at
   * most the poll interval).
   */
  private schedule(result: ExchangeResult): void {
    if (this.stopped || !this.started || this.draining > 0) return;
    const lanes = [...this.lanes.values()];
    if (
      this.newEvents ||
      (result.claimed.length === this.newLanes && this.newLanes > 0) ||
      lanes.some((l) => l.wantsMore() || l.idle())
    ) {
      this.again = true;
      return;
    }
    if (lanes.length > 0) {
      const now = this.ctx.clock().getTime();
      const waits = lanes.map((l) => (l.pausedUntil !== null ? l.pausedUntil - now : l.heldBackFor(now)));
      this.plan(Math.min(this.endpointLeaseMs / 3, ...waits));
      return;
    }
    this.plan(this.pollIntervalMs);
    earliestClaimable(this.ctx.db)
      .then((at) => {
        if (at === null || this.looking || this.lanes.size > 0) return;
        this.plan(Math.min(Date.parse(at) - this.ctx.clock().getTime() + 5, this.pollIntervalMs));
      })
      .catch((error: unknown) => this.log.warn({ err: error }, 'webhook worker: could not read the next due time'));
  }

  private plan(delayMs: number): void {
    if (this.stopped) return;
    this.clearTimer();
    this.timer = setTimeout(
      () => {
        this.timer = null;
        // The poll: also the safety net for a wake-up lost with the NOTIFY connection.
        this.newEvents = true;
        this.claimWanted = true;
        this.kick();
      },
      Math.max(0, delayMs),
    );
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private isLooking(): boolean {
    return this.looking !== null || this.soonTimer !== null;
  }

  private isIdle(): boolean {
    const busy = this.isLooking() || this.again || this.attempts.size > 0 || this.finished.length > 0 || this.draining > 0;
    return !busy && [...this.lanes.values()].every((lane) => lane.buffer.length === 0);
  }

  private settle(): void {
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private report(attempt: RecordedAttempt): void {
    const fields = {
      deliveryId: attempt.deliveryId,
      endpointId: attempt.endpointId,
      attempt: attempt.attemptNumber,
      status: attempt.status,
    };
    if (attempt.outcome.ok) this.log.debug(fields, 'webhook delivered');
    // Our configuration, not the partner: the operator must restore the key (docs/webhooks.md).
    else if (attempt.secretUnavailable !== undefined)
      this.log.error({ ...fields, error: attempt.secretUnavailable }, 'webhook not sent: its signing secret cannot be decrypted');
    else
      this.log.warn(
        { ...fields, statusCode: attempt.outcome.statusCode, error: attempt.outcome.error, throttled: attempt.throttled },
        'webhook attempt failed',
      );
    if (attempt.endpointDisabled) this.log.warn({ endpointId: attempt.endpointId }, 'webhook endpoint disabled');
    for (const listener of [...this.listeners]) {
      try {
        listener(attempt);
      } catch (error) {
        this.log.error({ err: error, deliveryId: attempt.deliveryId }, 'webhook worker: attempt listener failed');
      }
    }
  }
}

const taken = (result: ExchangeResult): number =>
  result.claimed.reduce((n, c) => n + c.taken.length, 0) + [...result.lanes.values()].reduce((n, l) => n + l.taken.length, 0);
