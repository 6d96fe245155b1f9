import type { Logger } from 'pino';
import { runInBackground } from '../background.js';
import type { DbOrTrx } from '../db/database.js';
import type { Metrics } from '../metrics.js';
import { toRow, type RequestLogEntry } from './request-log-entry.js';
import { insertRequestLogRows } from './request-log.repository.js';

/** Runs `run` once after `delayMs`, unless the returned cancel function is called first. */
export type FlushTimer = (delayMs: number, run: () => void) => () => void;

/** The default timer: an unref'd setTimeout (it never keeps the process alive). */
export const setTimeoutFlushTimer: FlushTimer = (delayMs, run) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/** Rows written by one INSERT at most; a batch this size is written at once (13 columns: far below both drivers' parameter limits). */
export const DEFAULT_BATCH_ROWS = 500;
/** A row waits at most this long before its batch is written. */
export const DEFAULT_FLUSH_INTERVAL_MS = 1_000;
/** Rows held in memory at most (waiting, or being written); past it new rows are dropped and counted. */
export const DEFAULT_MAX_BUFFERED = 20_000;

export interface RequestLogBufferOptions {
  db: DbOrTrx;
  logger: Pick<Logger, 'warn' | 'info'>;
  metrics: Metrics;
  /** When batches are written (default `setTimeoutFlushTimer`); tests pass one that never fires and call `flush()`. */
  timer?: FlushTimer;
  batchRows?: number;
  flushIntervalMs?: number;
  maxBuffered?: number;
}

/**
 * The request log's writer (issue 22, item 3): the request's onResponse hook hands it an entry (a
 * push onto an array: no statement, no promise on the request's path), and batches are written
 * later, one multi-row INSERT each: once `batchRows` rows wait, or `flushIntervalMs` after the first
 * row of a batch arrived, and at close.
 *
 * Unlike the audit trail (audit/audit-buffer.ts) the log is not durability-critical: it never delays
 * or fails a partner's answer. Its memory is bounded: past `maxBuffered` rows (waiting or being
 * written) new rows are dropped, and a batch whose write fails (the database unavailable) is dropped
 * rather than retried; both are counted in `request_log_dropped_rows_total` by reason, and a failing
 * database is logged once per outage.
 */
export class RequestLogBuffer {
  private pending: RequestLogEntry[] = [];
  /** Rows taken by the write under way. */
  private inFlight = 0;
  /** The writes, one after the other: each flush runs after the one before it. */
  private chain: Promise<void> = Promise.resolve();
  private cancelTimer: (() => void) | null = null;
  private timerDelay = 0;
  private failing = false;
  private closed = false;
  private readonly batchRows: number;
  private readonly flushIntervalMs: number;
  private readonly maxBuffered: number;

  constructor(private readonly options: RequestLogBufferOptions) {
    this.batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    this.flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  }

  /** Takes one answered request's entry; never throws, never waits. */
  record(entry: RequestLogEntry): void {
    if (this.closed) return;
    if (this.pending.length + this.inFlight >= this.maxBuffered) {
      this.options.metrics.requestLogDropped.inc({ reason: 'buffer_full' });
      return;
    }
    this.pending.push(entry);
    if (this.pending.length >= this.batchRows) this.arm(0);
    else if (this.cancelTimer === null) this.arm(this.flushIntervalMs);
  }

  /** Rows held and not yet written (waiting, or being written). */
  get size(): number {
    return this.pending.length + this.inFlight;
  }

  /** Writes every row recorded before this call; resolves once they are written or dropped (never rejects). */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => this.writePending());
    return this.chain;
  }

  /** Takes no more rows and writes those held (graceful shutdown, before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    this.disarm();
    await this.flush();
  }

  /** Schedules a flush in `delayMs`, unless one is due sooner. */
  private arm(delayMs: number): void {
    if (this.cancelTimer !== null) {
      if (this.timerDelay <= delayMs) return;
      this.cancelTimer();
    }
    this.timerDelay = delayMs;
    const timer = this.options.timer ?? setTimeoutFlushTimer;
    this.cancelTimer = timer(delayMs, () => {
      this.cancelTimer = null;
      runInBackground(this.flush(), () => undefined);
    });
  }

  private disarm(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
  }

  /** Writes what waits, a batch (one INSERT) at a time; rows recorded meanwhile are armed for later. */
  private async writePending(): Promise<void> {
    this.disarm();
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.batchRows);
      this.inFlight = batch.length;
      this.options.metrics.requestLogBuffered.set(this.size);
      try {
        await insertRequestLogRows(this.options.db, batch.map(toRow), this.batchRows);
        this.options.metrics.requestLogWritten.inc(batch.length);
        if (this.failing) {
          this.failing = false;
          this.options.logger.info('request log: rows are written again');
        }
      } catch (error) {
        this.options.metrics.requestLogDropped.inc({ reason: 'write_failed' }, batch.length);
        if (!this.failing) {
          this.failing = true;
          this.options.logger.warn(
            { err: error, dropped: batch.length },
            'request log: writing a batch failed; its rows are dropped (partners were answered)',
          );
        }
      } finally {
        this.inFlight = 0;
      }
    }
    this.options.metrics.requestLogBuffered.set(this.size);
  }
}
