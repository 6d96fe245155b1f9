// Over 250 lines: one class's loop (claim, lanes, wake-ups, stopping) over state its methods share; the rules it calls live in delivery-queue.service.ts.
import { randomUUID } from 'node:crypto';
import { listenForNotifications, type NotificationListener } from '../db/notifications.js';
import { WAKEUP_CHANNEL } from '../events/outbox-notifier.js';
import { AttemptListeners } from './attempt-log.js';
import { takenCount } from './delivery-queue.service.js';
import { LanePool } from './lane-pool.js';
import { LookTimers } from './look-timers.js';
import { earliestClaimable } from './queue.repository.js';
import { prepareQueue } from './reschedule.service.js';
import type { ExchangeResult, RecordedAttempt, WorkerLogger } from './types.js';
import {
  CLAIM_INTERVAL_MS,
  heartbeatMs,
  RECORD_BATCH,
  RECORD_WINDOW_MS,
  WAKE_SPACING_MS,
  workerSettings,
  type WebhookWorkerOptions,
  type WorkerContext,
} from './worker-settings.js';

export type { RecordedAttempt, WebhookWorkerOptions, WorkerContext, WorkerLogger };

/**
 * The delivery worker, a small scheduler: when to look at the queue, how much to take, when to stop.
 * What a look does is one transaction (`exchange`, delivery-queue.service.ts); what may start is the
 * owned endpoints' lanes (lane-pool.ts, endpoint-lane.ts). Runs in the server (RUN_WORKER) or alone
 * (src/worker.ts); any number share one PostgreSQL database. All state is in the database: a
 * restarted worker resumes where the last stopped: a crashed worker's endpoints are taken over once
 * their short lease, which a living worker renews at least every third of it, has ended, and the
 * deliveries it had taken with them (WEBHOOK_LEASE_MS, docs/webhooks.md).
 */
export class WebhookWorker {
  private readonly token = randomUUID();
  private readonly pool: LanePool;
  private readonly settings: ReturnType<typeof workerSettings>;
  private readonly listeners: AttemptListeners;
  private readonly timers = new LookTimers();
  private idleWaiters: (() => void)[] = [];
  private looking: Promise<ExchangeResult> | null = null;
  private again = false;
  /** What the next look must do besides recording and topping up: fan out events, look for endpoints. */
  private newEvents = true;
  private claimWanted = true;
  private lastClaimAt = 0;
  /** When the last look started (performance.now()): wake-ups are gathered under load. */
  private lastLookAt = -Infinity;
  private prepared = false;
  private started = false;
  private stopped = false;
  private draining = 0;
  private unsubscribe: (() => void) | null = null;
  private listener: NotificationListener | null = null;

  constructor(
    private readonly ctx: WorkerContext,
    options: WebhookWorkerOptions = {},
  ) {
    this.settings = workerSettings(ctx, options);
    this.listeners = new AttemptListeners(this.settings.log);
    this.pool = new LanePool(ctx, this.settings, () => this.attemptSettled());
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
      this.settings.log.warn({ err: error }, 'webhook worker: wake-up listener lost; polling meanwhile'),
    );
    this.kick();
  }

  /** Attempts under way now (logged when a shutdown runs out of time). */
  get attemptsInFlight(): number {
    return this.pool.attempts.size;
  }

  /** Stops taking work, waits for the attempts in flight, records them, gives every endpoint back. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.timers.clear();
    this.unsubscribe?.();
    await this.listener?.close();
    await this.looking;
    await Promise.allSettled(this.pool.attempts);
    await this.look().catch((error: unknown) => this.settings.log.error({ err: error }, 'webhook worker: final look failed'));
    if (this.settings.ownsSender) await this.settings.sender.close();
  }

  /**
   * Works until nothing more can be done now: fans out, attempts what is due, records it. For tests
   * (with a fake clock) and one-shot runs; do not mix with a started worker. What another worker
   * owns, or a pause or a per-second limit holds back, is left.
   */
  async drain(): Promise<void> {
    this.draining += 1;
    try {
      for (;;) {
        this.newEvents = true;
        this.claimWanted = true;
        const result = await this.look();
        const moved = result.recorded.length > 0 || result.fannedOut > 0 || takenCount(result) > 0;
        if (!moved && this.pool.attempts.size === 0 && this.pool.finished.length === 0) return;
        // All of them, so that the next look records them together.
        await Promise.allSettled(this.pool.attempts);
      }
    } finally {
      this.draining -= 1;
      this.settle();
    }
  }

  /** Resolves once nothing is under way: no look, no attempt in flight, taken or waiting to be recorded. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Calls `listener` after each attempt once recorded; returns the function that unsubscribes it. */
  onAttempt(listener: (attempt: RecordedAttempt) => void): () => void {
    return this.listeners.add(listener);
  }

  /**
   * New events committed (in-process or NOTIFY): look at once, unless a look started less than
   * WAKE_SPACING_MS ago; then the events of the burst are gathered into the look at its end.
   */
  readonly wake = (): void => {
    this.newEvents = true;
    this.claimWanted = true;
    this.pool.refresh();
    const since = performance.now() - this.lastLookAt;
    if (!this.looking && since >= WAKE_SPACING_MS) this.kick();
    else this.timers.gather(WAKE_SPACING_MS - since, this.kick);
  };

  /** Looks at the queue now, or right after the look under way. */
  readonly kick = (): void => {
    if (this.stopped || !this.started || this.draining > 0) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    this.timers.clear();
    this.look()
      .catch((error: unknown) => {
        this.settings.log.error({ err: error }, 'webhook worker: look at the queue failed; trying again');
        this.plan(this.settings.pollIntervalMs);
      })
      .finally(() => {
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
        this.settle();
      });
  };

  /**
   * After an attempt: its slot goes to the lane's next delivery at once; the look that records it
   * waits for others (RECORD_BATCH, or RECORD_WINDOW_MS), unless a lane runs low.
   */
  private attemptSettled(): void {
    if (!this.stopped) this.pool.pump();
    if (this.pool.finished.length >= RECORD_BATCH || this.pool.wantsLook()) {
      this.kick();
      return;
    }
    this.timers.gather(RECORD_WINDOW_MS, this.kick);
  }

  /** One look at the queue (one transaction), then the attempts it allows; one look at a time. */
  private async look(): Promise<ExchangeResult> {
    while (this.looking) await this.looking;
    this.lastLookAt = performance.now();
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
      await prepareQueue(this.ctx, this.settings.log);
      this.prepared = true;
    }
    const stopping = this.stopped;
    const now = this.ctx.clock().getTime();
    const fanOut = this.newEvents && !stopping;
    const claim = !stopping && (this.claimWanted || now - this.lastClaimAt >= CLAIM_INTERVAL_MS);
    const newLanes = claim ? this.pool.room() : 0;
    this.newEvents = false;
    if (claim) [this.claimWanted, this.lastClaimAt] = [false, now];
    const { endpointLeaseMs, leaseMs: deliveryLeaseMs } = this.settings;
    const leases = { token: this.token, endpointLeaseMs, deliveryLeaseMs };
    const result = await this.pool.look(this.ctx, { ...leases, stopping, newLanes, fanOut });
    for (const attempt of result.recorded) this.listeners.report(attempt);
    if (result.takenOver > 0)
      this.settings.log.info(
        { deliveries: result.takenOver },
        'webhook worker: took over endpoints whose worker stopped renewing its lease; the deliveries it had taken are due again',
      );
    if (fanOut && result.fannedOut > 0) this.newEvents = true;
    if (newLanes > 0 && result.claimed.length === newLanes) this.claimWanted = true;
    if (!this.stopped) this.pool.pump();
    this.schedule();
    return result;
  }

  /**
   * Plans the next look: at once while more events or endpoints may wait or a lane needs a look;
   * else when a pause or a per-second limit ends, or at the heartbeat that renews the endpoints' leases;
   * owning none, when the next work is due, at most the poll interval away.
   */
  private schedule(): void {
    if (this.stopped || !this.started || this.draining > 0) return;
    if (this.newEvents || this.claimWanted || this.pool.wantsLook()) {
      this.again = true;
      return;
    }
    if (this.pool.lanes.size > 0) {
      this.plan(Math.min(heartbeatMs(this.settings.endpointLeaseMs), this.pool.nextWaitMs(this.ctx.clock().getTime())));
      return;
    }
    this.plan(this.settings.pollIntervalMs);
    earliestClaimable(this.ctx.db)
      .then((at) => {
        if (at === null || this.looking || this.pool.lanes.size > 0) return;
        this.plan(Math.min(Date.parse(at) - this.ctx.clock().getTime() + 5, this.settings.pollIntervalMs));
      })
      .catch((error: unknown) => this.settings.log.warn({ err: error }, 'webhook worker: could not read the next due time'));
  }

  /** The next look in `delayMs`; it also fans out and looks for endpoints (the safety net for a lost NOTIFY). */
  private plan(delayMs: number): void {
    if (this.stopped) return;
    this.timers.plan(delayMs, () => {
      this.newEvents = true;
      this.claimWanted = true;
      this.kick();
    });
  }

  private isIdle(): boolean {
    const { pool } = this;
    const busy = this.looking !== null || this.timers.gatheringNow || this.again || this.draining > 0;
    return !busy && pool.attempts.size === 0 && pool.finished.length === 0 && !pool.holdsDeliveries();
  }

  private settle(): void {
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
