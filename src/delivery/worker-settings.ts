import type { AppContext, ServiceContext, KeyringContext } from '../context.js';
import { silentLogger } from './attempt-log.js';
import { PREFETCH_FACTOR } from './endpoint-lane.js';
import { createHttpSender } from './http-sender.js';
import type { WebhookSender, WorkerLogger } from './types.js';
import { urlPolicyOf } from './url-safety.js';

/** What the delivery worker runs on: an event writer's context, and the metrics that count its attempts. */
export type WorkerContext = ServiceContext & KeyringContext & Pick<AppContext, 'metrics'>;

export interface WebhookWorkerOptions {
  /** Attempts in flight at once in this worker, all endpoints together (default 200). */
  concurrency?: number;
  /** Endpoints this worker owns at once at most (default 64). */
  maxEndpoints?: number;
  /** Longest sleep between looks at the queue (default 2 s); events and due retries wake it sooner. */
  pollIntervalMs?: number;
  /**
   * The backstop lease of a taken delivery (default (PREFETCH_FACTOR + 1) × the attempt timeout +
   * 30 s, 120 s by default: a lane holds at most PREFETCH_FACTOR × max_in_flight deliveries, so the
   * last waits at most that many timeouts before its own: endpoint-lane.ts). It is not what brings a
   * dead worker's deliveries back: the endpoint's lease is (queue.repository.ts, claimEndpoints).
   */
  leaseMs?: number;
  /**
   * How long an endpoint, and the deliveries taken of it, are ours without a look at the queue
   * (default WEBHOOK_LEASE_MS, 5 s); renewed at every look, and a look comes at least every third
   * of it (the heartbeat), so two renewals can be missed before another worker takes over.
   */
  endpointLeaseMs?: number;
  /** Defaults to the HTTP sender with the deployment's SSRF policy and timeout. */
  sender?: WebhookSender;
  logger?: WorkerLogger;
}

/**
 * Under a steady stream of events, looks start at most this often for them: a look costs about the
 * same for one event as for fifty (a transaction, and on SQLite the connection the requests share),
 * so one per committed order took the server's core from its requests (docs/performance.md). An event
 * after a quiet moment is looked at at once.
 */
export const WAKE_SPACING_MS = 10;

/** A busy worker still looks for other endpoints' work this often (a fresh event wakes it at once). */
export const CLAIM_INTERVAL_MS = 50;

/**
 * Finished attempts are recorded together: this many, or after this long. Nothing waits on a
 * record but the lease, so the window is longer than Convoy's 2 ms: a look costs about the same for
 * one attempt as for sixty-four (docs/performance.md).
 */
export const RECORD_BATCH = 64;
export const RECORD_WINDOW_MS = 20;

/** A worker owning endpoints looks at the queue at least this often, renewing their lease: a third of it. */
export const heartbeatMs = (endpointLeaseMs: number): number => endpointLeaseMs / 3;

/** The options with their defaults. */
export function workerSettings(ctx: WorkerContext, options: WebhookWorkerOptions) {
  const timeoutMs = ctx.config.webhookTimeoutMs;
  return {
    pollIntervalMs: options.pollIntervalMs ?? 2000,
    leaseMs: options.leaseMs ?? (PREFETCH_FACTOR + 1) * timeoutMs + 30_000,
    endpointLeaseMs: options.endpointLeaseMs ?? ctx.config.webhookLeaseMs,
    ownsSender: options.sender === undefined,
    sender: options.sender ?? createHttpSender({ policy: urlPolicyOf(ctx.config), timeoutMs }),
    log: options.logger ?? silentLogger,
    limits: { concurrency: options.concurrency ?? 200, maxEndpoints: options.maxEndpoints ?? 64 },
  };
}
