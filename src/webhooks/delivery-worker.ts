import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext, EventWriterContext, KeyringContext } from '../context.js';
import * as deliveries from './delivery.repository.js';
import { attemptDelivery, type AttemptResult, type ClaimedDelivery } from './delivery.service.js';
import { dispatchOutbox } from './dispatcher.js';
import { applyRetryScheduleToWaiting } from './reschedule.service.js';
import { createHttpSender, type SendOutcome, type WebhookSender } from './http-sender.js';
import { urlPolicyOf } from './url-safety.js';
import { listenForWakeups, type WakeupListener } from './wakeup.js';
import * as endpoints from './webhook.repository.js';

export type WorkerLogger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** What the worker runs on: an event writer's context, and the metrics that count its attempts. */
export type WorkerContext = EventWriterContext & KeyringContext & Pick<AppContext, 'metrics'>;

export interface WebhookWorkerOptions {
  /** Attempts in flight at once in this worker (default 10). */
  concurrency?: number;
  /**
   * Attempts in flight at once to one endpoint (default 2), counted across every worker sharing the
   * database, so that a slow endpoint cannot take every slot nor be flooded by several instances.
   */
  perEndpointConcurrency?: number;
  /** Longest sleep between looks at the queue (default 2 s); events and due retries wake it sooner. */
  pollIntervalMs?: number;
  /** How long a claimed delivery is ours (default: the attempt timeout + 30 s). */
  leaseMs?: number;
  /**
   * How long a wake-up for new events waits for others (default 10 ms), so that one look at the
   * queue fans out every event of a burst: under load, a look per order cost two more transactions
   * per order (docs/performance.md).
   */
  batchWindowMs?: number;
  /** Defaults to the HTTP sender with the deployment's SSRF policy and timeout. */
  sender?: WebhookSender;
  logger?: WorkerLogger;
}

/** One attempt the worker made and recorded (see `WebhookWorker.onAttempt`). */
export interface RecordedAttempt extends AttemptResult {
  eventId: string;
  endpointId: string;
}

const silent: WorkerLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The delivery worker: fans outbox events out to deliveries and sends the due ones, with bounded
 * concurrency, never inside a request. Runs in the server (RUN_WORKER) or alone (src/worker.ts);
 * several workers may share one PostgreSQL database: deliveries are claimed with SKIP LOCKED and a
 * lease, so no delivery is attempted by two workers at once, and the per-endpoint limit counts the
 * leases of all of them. All state is in the database: a restarted worker resumes where the last one
 * stopped (a lease left by a crash expires). Each attempt is counted in `ctx.metrics` by outcome.
 */
export class WebhookWorker {
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly batchWindowMs: number;
  private readonly sender: WebhookSender;
  private readonly ownsSender: boolean;
  private readonly log: WorkerLogger;
  /** Attempts in flight in this worker, by delivery id. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private cycle: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  /** The look at the queue that a wake-up for new events scheduled, at the end of the batch window. */
  private batch: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private listener: WakeupListener | null = null;
  private draining = 0;
  /** Whether the current retry schedule was applied to the deliveries already waiting (once per worker). */
  private scheduleApplied = false;
  private idleWaiters: (() => void)[] = [];
  private readonly attemptListeners = new Set<(attempt: RecordedAttempt) => void>();

  constructor(
    private readonly ctx: WorkerContext,
    options: WebhookWorkerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 10;
    this.perEndpoint = options.perEndpointConcurrency ?? 2;
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.leaseMs = options.leaseMs ?? ctx.config.webhookTimeoutMs + 30_000;
    this.batchWindowMs = options.batchWindowMs ?? 10;
    this.ownsSender = options.sender === undefined;
    this.sender = options.sender ?? createHttpSender({ policy: urlPolicyOf(ctx.config), timeoutMs: ctx.config.webhookTimeoutMs });
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
    this.unsubscribe = this.ctx.outbox.subscribe(this.kickSoon);
    this.listener = await listenForWakeups(this.ctx, this.kickSoon, (error) =>
      this.log.warn({ err: error }, 'webhook worker: wake-up listener lost; polling meanwhile'),
    );
    this.kick();
  }

  /** Attempts under way now (logged when a shutdown runs out of time). */
  get attemptsInFlight(): number {
    return this.inFlight.size;
  }

  /** Stops taking work, waits for the attempts in flight (each bounded by the timeout), and closes. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.batch) clearTimeout(this.batch);
    this.batch = null;
    this.unsubscribe?.();
    await this.listener?.close();
    await this.cycle;
    await Promise.allSettled(this.inFlight.values());
    if (this.ownsSender) await this.sender.close();
  }

  /**
   * Works until nothing is due now: fans out, attempts what is due and waits for the attempts.
   * For tests (with a fake clock) and for one-shot runs; do not mix with a started worker. With
   * other workers on the database, it returns once this worker can claim nothing more: what is due
   * may then be leased by them, or wait for a slot their attempts hold on its endpoint.
   */
  async drain(): Promise<void> {
    this.draining += 1;
    try {
      await this.applyRetrySchedule();
      for (;;) {
        await dispatchOutbox(this.ctx);
        // An attempt may finish while the next claim is under way: only a round that started
        // nothing, with nothing left in flight, means nothing more is due for this worker.
        const started = await this.claimAndStart();
        if (started === 0 && this.inFlight.size === 0) return;
        await Promise.allSettled(this.inFlight.values());
      }
    } finally {
      this.draining -= 1;
      this.settle();
    }
  }

  /**
   * Resolves once the worker is idle: no look at the queue under way and no attempt in flight (at
   * once when it is idle now). Every attempt started before is then recorded. An idle started worker
   * waits for a wake-up, its next due retry or its poll, so this is "nothing to do right now", not
   * "done for good": for graceful hand-overs, health checks and tests that must know that the
   * worker has finished what it was woken for. On a started worker, call it once `start()` resolved.
   */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Calls `listener` after each attempt this worker made, once its outcome is recorded (`status`:
   * delivered, pending for a retry at `nextAttemptAt`, failed; null when another worker had taken
   * the lease over), for metrics and tests; returns the function that unsubscribes it. A listener
   * that throws is logged and never disturbs the worker. Attempts whose outcome could not be
   * recorded (the database failed) are not reported.
   */
  onAttempt(listener: (attempt: RecordedAttempt) => void): () => void {
    this.attemptListeners.add(listener);
    return () => this.attemptListeners.delete(listener);
  }

  private isIdle(): boolean {
    return this.cycle === null && this.batch === null && this.inFlight.size === 0 && this.draining === 0;
  }

  private settle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /**
   * Wakes the worker for new events at the end of the batch window, so that the events committed
   * meanwhile are fanned out together; a look already under way takes them instead.
   */
  readonly kickSoon = (): void => {
    if (this.stopped || !this.started) return;
    if (this.cycle) {
      this.again = true;
      return;
    }
    if (this.batch) return;
    this.batch = setTimeout(() => {
      this.batch = null;
      this.kick();
    }, this.batchWindowMs);
  };

  /** Wakes the worker now; coalesces wake-ups that arrive while it is busy. */
  readonly kick = (): void => {
    if (this.stopped || !this.started) return;
    if (this.batch) clearTimeout(this.batch);
    this.batch = null;
    if (this.cycle) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.cycle = this.runCycle()
      .catch((error: unknown) => this.log.error({ err: error }, 'webhook worker: cycle failed; retrying on the next wake-up'))
      .finally(() => {
        this.cycle = null;
        if (this.again) {
          this.again = false;
          this.kick();
        } else if (!this.timer && !this.stopped) {
          // The cycle failed before it could plan its next look.
          this.timer = setTimeout(this.kick, this.pollIntervalMs);
        }
        this.settle();
      });
  };

  private async runCycle(): Promise<void> {
    await this.applyRetrySchedule();
    do {
      this.again = false;
      await dispatchOutbox(this.ctx);
      await this.claimAndStart();
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- kick() sets it while the cycle awaits
    } while (this.again && !this.stopped);
    await this.planNextLook();
  }

  /**
   * Before its first look at the queue, the worker moves the deliveries already waiting to the
   * current WEBHOOK_RETRY_SCHEDULE (a restart with a changed schedule applies it to them). If the
   * database fails, the worker still works and tries again on its next cycle.
   */
  private async applyRetrySchedule(): Promise<void> {
    if (this.scheduleApplied) return;
    try {
      const moved = await applyRetryScheduleToWaiting(this.ctx);
      this.scheduleApplied = true;
      if (moved > 0) this.log.info({ moved }, 'webhook worker: waiting deliveries moved to the current retry schedule');
    } catch (error) {
      this.log.warn({ err: error }, 'webhook worker: could not apply the retry schedule to waiting deliveries; trying again');
    }
  }

  /** Sleeps until the next retry is due, or at most the poll interval. */
  private async planNextLook(): Promise<void> {
    if (this.stopped) return;
    const now = this.ctx.clock();
    const due = await deliveries.earliestDueTime(this.ctx.db, now.toISOString());
    let delay = this.pollIntervalMs;
    if (due !== null) {
      const wait = Date.parse(due) - now.getTime();
      // Due now but not claimable (its endpoint is busy, here or in another worker, or we are full): a
      // finishing attempt wakes the worker that made it, which claims the next; we look again at the poll.
      if (wait > 0) delay = Math.min(wait + 5, this.pollIntervalMs);
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have been called while we awaited
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(this.kick, delay);
  }

  /** Claims and starts due deliveries while there is room; returns how many it started. */
  private async claimAndStart(): Promise<number> {
    let started = 0;
    while (!this.stopped) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) break;
      const claimed = await this.claim(free);
      if (claimed.length === 0) break;
      for (const delivery of claimed) this.startAttempt(delivery);
      started += claimed.length;
    }
    return started;
  }

  /**
   * Claims up to `free` due deliveries, leaving every endpoint at most `perEndpoint` leased
   * deliveries counted across all workers: the count is made under the endpoints' claim locks, in the
   * transaction that takes the leases, so two workers claiming at once cannot exceed it.
   */
  private async claim(free: number): Promise<ClaimedDelivery[]> {
    return this.ctx.db.transaction().execute(async (trx) => {
      const now = this.ctx.clock();
      const nowIso = now.toISOString();
      const candidates = await deliveries.lockDueDeliveries(trx, {
        now: nowIso,
        limit: free * 3,
        perEndpointLimit: this.perEndpoint,
        dialect: this.ctx.dialect,
      });
      const endpointIds = [...new Set(candidates.map((c) => c.endpoint_id))];
      if (this.ctx.dialect === 'postgres') await deliveries.lockEndpointClaims(trx, endpointIds);
      const leased = await deliveries.countLeasesByEndpoint(trx, endpointIds, nowIso);
      const chosen: deliveries.DueDelivery[] = [];
      for (const candidate of candidates) {
        if (chosen.length >= free) break;
        const n = leased.get(candidate.endpoint_id) ?? 0;
        if (n >= this.perEndpoint) continue;
        leased.set(candidate.endpoint_id, n + 1);
        chosen.push(candidate);
      }
      const targets = new Map(
        (await endpoints.endpointsByIds(trx, [...new Set(chosen.map((c) => c.endpoint_id))])).map((e) => [e.id, e]),
      );
      const sendable = chosen.filter((c) => {
        const target = targets.get(c.endpoint_id);
        return target !== undefined && target.deleted_at === null && target.status === 'active';
      });
      for (const c of chosen.filter((d) => !sendable.includes(d))) {
        // Deleting or disabling an endpoint closes its deliveries in the same transaction; this only
        // catches a delivery left pending by an older version of that rule.
        const target = targets.get(c.endpoint_id);
        const status = target?.deleted_at === null ? 'failed' : 'cancelled';
        await deliveries.updateDelivery(trx, c.id, {
          status,
          next_attempt_at: null,
          last_error: 'endpoint not active',
          updated_at: nowIso,
        });
      }
      const token = randomUUID();
      await deliveries.leaseDeliveries(
        trx,
        sendable.map((c) => c.id),
        new Date(now.getTime() + this.leaseMs).toISOString(),
        token,
      );
      return sendable.map((c) => {
        // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- sendable has only deliveries whose target was found
        const target = targets.get(c.endpoint_id)!;
        return {
          ...c,
          url: target.url,
          secret: { id: target.id, secret: target.secret, secret_key_id: target.secret_key_id },
          token,
        };
      });
    });
  }

  private startAttempt(delivery: ClaimedDelivery): void {
    const done = attemptDelivery(this.ctx, this.sender, delivery, (outcome) => this.count(outcome))
      .then((result) => {
        const fields = {
          deliveryId: result.deliveryId,
          eventId: delivery.event_id,
          endpointId: delivery.endpoint_id,
          attempt: result.attemptNumber,
          statusCode: result.outcome.statusCode,
          durationMs: result.outcome.durationMs,
          status: result.status,
          nextAttemptAt: result.nextAttemptAt,
        };
        if (result.outcome.ok) {
          this.log.info(fields, 'webhook delivered');
        } else if (result.secretUnavailable !== undefined) {
          // Our configuration, not the partner: the operator must restore the key (docs/webhooks.md).
          this.log.error(
            { ...fields, error: result.secretUnavailable },
            'webhook not sent: its signing secret cannot be decrypted',
          );
        } else {
          this.log.warn({ ...fields, error: result.outcome.error }, 'webhook attempt failed');
        }
        if (result.endpointDisabled) this.log.warn({ endpointId: delivery.endpoint_id }, 'webhook endpoint disabled');
        if (result.status === null) this.log.warn(fields, 'webhook attempt finished after its lease was taken over');
        this.report({ ...result, eventId: delivery.event_id, endpointId: delivery.endpoint_id });
      })
      .catch((error: unknown) => {
        // Not recorded (the database failed): the lease expires and the delivery is attempted again.
        this.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt could not be recorded');
      })
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.kick();
        this.settle();
      });
    this.inFlight.set(delivery.id, done);
  }

  /** Counts an attempt in this process's metrics once its answer (or failure) is known, recorded or not. */
  private count(outcome: SendOutcome): void {
    const { webhookAttempts, webhookAttemptDuration } = this.ctx.metrics;
    webhookAttempts.inc({ outcome: outcome.kind });
    webhookAttemptDuration.observe({ outcome: outcome.kind }, outcome.durationMs / 1000);
  }

  private report(attempt: RecordedAttempt): void {
    for (const listener of [...this.attemptListeners]) {
      try {
        listener(attempt);
      } catch (error) {
        this.log.error({ err: error, deliveryId: attempt.deliveryId }, 'webhook worker: attempt listener failed');
      }
    }
  }
}
