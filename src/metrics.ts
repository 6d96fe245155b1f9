import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolUsage } from './db/create-db.js';
import type { Db } from './db/database.js';
import { countPendingDeliveries, countUndispatchedEvents } from './delivery/backlog.repository.js';

/**
 * The process's Prometheus metrics, on a registry of its own (not prom-client's global one), so
 * that every runtime (a server, a worker, each test's app) counts apart. Served at GET /metrics.
 *
 * Names follow Prometheus conventions: `_total` counters, `_seconds` durations, base units.
 */
export class Metrics {
  readonly registry = new Registry();

  /** Every HTTP answer, by method, route pattern (never the raw URL: ids would explode the series) and status. */
  readonly httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Requests refused with 429, by what was counted: an API key, or a client address. */
  readonly rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 RATE_LIMIT_EXCEEDED, by bucket kind (key, address, operator for failed operator authentications, oauth_token for failed token requests)',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });

  /** Times Redis became unreachable (one per outage, not one per failed command). */
  readonly redisOutages = new Counter({
    name: 'redis_outages_total',
    help: 'Times Redis became unreachable (counted once per outage)',
    registers: [this.registry],
  });

  /**
   * 1 while Redis answers, 0 during an outage; registered by the Redis connection (trackRedis), so
   * that a process without REDIS_URL shows no `redis_up 0` for an alert to mistake for an outage.
   */
  readonly redisUp = new Gauge({
    name: 'redis_up',
    help: '1 while Redis answers, 0 during an outage',
    registers: [],
  });

  /** Exposes redis_up: this process talks to Redis. */
  trackRedis(): void {
    if (!this.registry.getSingleMetric('redis_up')) this.registry.registerMetric(this.redisUp);
  }

  /**
   * Webhook delivery attempts, by outcome (success, http_error, timeout, network_error, refused: see
   * SendOutcomeKind). Counted by the process that runs the delivery worker only.
   */
  readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Time a webhook receiver took to answer one attempt. */
  readonly webhookAttemptDuration = new Histogram({
    name: 'webhook_delivery_attempt_duration_seconds',
    help: 'Time a webhook receiver took to answer one delivery attempt',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** Audit trail read rows recorded and not yet written (the buffer flushes every 250 ms). */
  readonly auditBufferedReads = new Gauge({
    name: 'audit_buffered_reads',
    help: 'Audit trail read rows recorded in memory and not yet written to the database',
    registers: [this.registry],
  });

  /** Failed writes of buffered audit reads (the rows are kept and retried). */
  readonly auditFlushFailures = new Counter({
    name: 'audit_flush_failures_total',
    help: 'Failed writes of buffered audit trail reads (the rows are kept and written on a later flush)',
    registers: [this.registry],
  });

  /** Request log rows held in memory, waiting or being written (request-log/request-log-buffer.ts). */
  readonly requestLogBuffered = new Gauge({
    name: 'request_log_buffered_rows',
    help: 'Partner request log rows held in memory and not yet written to the database',
    registers: [this.registry],
  });

  /** Request log rows written to the database. */
  readonly requestLogWritten = new Counter({
    name: 'request_log_written_rows_total',
    help: 'Partner request log rows written to the database',
    registers: [this.registry],
  });

  /**
   * Request log rows dropped, by reason: `buffer_full` (more rows held than the buffer's bound) or
   * `write_failed` (the database refused the batch). The partners' answers are never affected.
   */
  readonly requestLogDropped = new Counter({
    name: 'request_log_dropped_rows_total',
    help: 'Partner request log rows dropped (buffer_full: the in-memory bound was reached; write_failed: the database refused the batch)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The PostgreSQL connection pool, read when scraped (the gauges' `collect`), so the numbers are
   * those of the scrape's moment. Called only with a pool: on SQLite (one connection in the process,
   * nothing to wait for) these gauges are absent.
   */
  observeDatabasePool(usage: () => PoolUsage): void {
    const gauges = [
      new Gauge({
        name: 'db_pool_connections',
        help: 'Open connections of the PostgreSQL pool, by state (idle, in_use)',
        labelNames: ['state'] as const,
        registers: [],
        collect() {
          const now = usage();
          this.set({ state: 'idle' }, now.idle);
          this.set({ state: 'in_use' }, now.total - now.idle);
        },
      }),
      new Gauge({
        name: 'db_pool_waiting_requests',
        help: 'Queries waiting for a connection of the PostgreSQL pool (every connection is in use)',
        registers: [],
        collect() {
          this.set(usage().waiting);
        },
      }),
      new Gauge({
        name: 'db_pool_max_connections',
        help: 'The most connections the PostgreSQL pool opens',
        registers: [],
        collect() {
          this.set(usage().max);
        },
      }),
    ];
    for (const gauge of gauges) this.registry.registerMetric(gauge);
  }
}

/**
 * The webhook queue's backlog, read from the database at each scrape (one COUNT each), so that every
 * process sharing the database shows it, whether or not it runs the delivery worker. A failed count
 * shows NaN rather than failing the whole scrape (the other metrics matter most during an outage).
 */
export function registerBacklogGauges(metrics: Metrics, db: Db): void {
  const gauge = (name: string, help: string, count: (db: Db) => Promise<number>) =>
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      async collect() {
        this.set(await count(db).catch(() => Number.NaN));
      },
    });
  gauge('webhook_outbox_backlog', 'Outbox events not yet fanned out to webhook deliveries', countUndispatchedEvents);
  gauge(
    'webhook_delivery_backlog',
    'Webhook deliveries not yet delivered nor given up: waiting for their first attempt or a retry, or in flight',
    countPendingDeliveries,
  );
}
