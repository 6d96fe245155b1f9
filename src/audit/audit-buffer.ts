import type { Logger } from 'pino';
import { runInBackground } from '../background.js';
import { AppError } from '../errors.js';
import { isoNow, type Clock } from '../clock.js';
import type { DbOrTrx } from '../db/database.js';
import type { Metrics } from '../metrics.js';
import type { AuditContext } from './audit-actor.js';
import type { AuditedResource } from './audit-vocabulary.js';
import { insertAuditEvents } from './audit.repository.js';
import { auditRow } from './audit.service.js';
import type { AuditEventTable } from './audit.tables.js';

/** Runs `tick` every `intervalMs` until the returned cancel function is called. */
export type FlushScheduler = (intervalMs: number, tick: () => void) => () => void;

/** The default: an unref'd setInterval (it never keeps the process alive). */
export const intervalFlushScheduler: FlushScheduler = (intervalMs, tick) => {
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * Rows per INSERT of a flush, with the event loop let go between them: on SQLite a write blocks the
 * process, and one INSERT of 500 rows into the trail and its indexes held every request behind it
 * for milliseconds (the p99 of a busy GET: docs/performance.md).
 */
const FLUSH_CHUNK = 100;

/** Reads are visible in the trail within this long (the issue asks for one second). */
export const DEFAULT_FLUSH_INTERVAL_MS = 250;

/**
 * Rows the buffer holds at most while the trail cannot be written (about 30 MB). Past it, reads of
 * PHI are refused (503) rather than served unrecorded or held in memory without bound.
 */
export const DEFAULT_MAX_PENDING = 100_000;

export interface AuditReadBufferOptions {
  db: DbOrTrx;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'error' | 'info'>;
  metrics?: Metrics;
  intervalMs?: number;
  /** How flushes are scheduled (default: `intervalFlushScheduler`); tests inject their own and call `flush()`. */
  scheduler?: FlushScheduler;
  /** Rows held at most before reads are refused (default DEFAULT_MAX_PENDING). */
  maxPending?: number;
}

/**
 * The read half of the audit trail. A read must not wait for, or fail because of, a write to the
 * trail, so reads are recorded here, in memory, and written in batches (one multi-row INSERT per up
 * to 500 rows) every `intervalMs`. Nothing is dropped: rows leave the buffer only once written; a
 * failed write keeps them, in order, for the next flush (logged once per outage, counted in the
 * metrics). `close()` writes what is left on graceful shutdown. Changes are not buffered: they are
 * written in their own transaction (audit.service.ts `recordChange`).
 */
export class AuditReadBuffer {
  private readonly pending: AuditEventTable[] = [];
  /** The flushes run one after another: each writes what is pending when its turn comes. */
  private tail: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private failing = false;
  private closed = false;
  private readonly cancelTimer: () => void;

  constructor(private readonly options: AuditReadBufferOptions) {
    const schedule = options.scheduler ?? intervalFlushScheduler;
    this.cancelTimer = schedule(options.intervalMs ?? DEFAULT_FLUSH_INTERVAL_MS, () => this.tick());
  }

  /**
   * Records that `audit`'s actor was shown these resources, now. Never waits for the database; throws
   * 503 SERVICE_UNAVAILABLE when the trail has been failing long enough to fill the buffer.
   */
  recordReads(audit: AuditContext, resources: readonly AuditedResource[]): void {
    if (resources.length === 0) return;
    // After close nothing would write them: refusing loudly beats losing them.
    if (this.closed) throw new Error('The audit buffer is closed: reads can no longer be recorded');
    if (this.pending.length + resources.length > (this.options.maxPending ?? DEFAULT_MAX_PENDING)) {
      // Fail closed: PHI is never handed out without its read on record.
      throw new AppError('SERVICE_UNAVAILABLE', 503, 'The audit trail cannot be written right now: try again shortly');
    }
    const at = isoNow(this.options.clock);
    for (const resource of resources) this.pending.push(auditRow(at, audit, 'read', resource));
    this.options.metrics?.auditBufferedReads.set(this.pending.length);
  }

  /** Rows recorded and not yet written. */
  get size(): number {
    return this.pending.length;
  }

  /**
   * Writes every row recorded before this call (and any recorded meanwhile). Rejects when the
   * database refuses; the rows stay buffered, and the next flush (the timer's or a caller's) writes them.
   */
  flush(): Promise<void> {
    this.inFlight += 1;
    const run = this.tail.then(() => this.writePending()).finally(() => (this.inFlight -= 1));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once the flushes under way (the timer's included) have ended, without starting one. */
  whenIdle(): Promise<void> {
    return this.tail;
  }

  /**
   * Stops the timer and writes what is left (graceful shutdown; runtime.close() calls it before
   * closing the database). If that last write fails, the rows go to the error log (ids only, no
   * PHI) so that they still exist somewhere, and the error is rethrown.
   */
  async close(): Promise<void> {
    if (this.closed) return this.tail;
    this.closed = true;
    this.cancelTimer();
    try {
      await this.flush();
    } catch (error) {
      this.options.logger.error(
        { err: error, audit_events: this.pending },
        `audit trail: ${this.pending.length} read rows could not be written at shutdown; they are in this log line`,
      );
      throw error;
    }
  }

  private tick(): void {
    // An outage makes writes slow to fail: never queue a second attempt behind the one under way.
    if (this.pending.length === 0 || this.inFlight > 0) return;
    runInBackground(this.flush(), () => undefined);
  }

  private async writePending(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        // Only this loop removes rows, from the front, once written; recordReads appends at the end.
        const batch = this.pending.slice(0, FLUSH_CHUNK);
        await insertAuditEvents(this.options.db, batch);
        this.pending.splice(0, batch.length);
        this.options.metrics?.auditBufferedReads.set(this.pending.length);
        if (this.pending.length > 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      this.options.metrics?.auditFlushFailures.inc();
      if (!this.failing) {
        this.failing = true;
        this.options.logger.warn(
          { err: error, buffered: this.pending.length },
          'audit trail: writing buffered reads failed; they are kept and retried',
        );
      }
      throw error;
    }
    if (this.failing) {
      this.failing = false;
      this.options.logger.info('audit trail: buffered reads written again');
    }
  }
}
