import type { Logger } from 'pino';
import { runInBackground } from '../background.js';
import { AppError } from '../errors.js';
import { isoNow, type Clock } from '../clock.js';
import type { DbOrTrx } from '../db/database.js';
import type { Metrics } from '../metrics.js';
import type { AuditContext } from './audit-actor.js';
import { auditRow } from './audit-row.js';
import type { AuditedResource } from './audit-vocabulary.js';
import { insertAuditEvents } from './audit.repository.js';
import type { AuditEventTable } from './audit.tables.js';

/** Runs `write` soon: after the reads of this turn of the event loop have been recorded (default: setImmediate). */
export type BatchScheduler = (write: () => void) => void;

export const immediateBatchScheduler: BatchScheduler = (write) => void setImmediate(write);

/**
 * Rows waiting at most (being written, or waiting for the write under way to end). Past it, reads
 * are refused at once (503) rather than queued without bound behind a trail that cannot keep up.
 */
export const DEFAULT_MAX_PENDING = 20_000;

export interface AuditReadBufferOptions {
  db: DbOrTrx;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'error' | 'info'>;
  metrics?: Metrics;
  /** When a batch is written (default: `immediateBatchScheduler`); tests inject their own to hold one. */
  scheduler?: BatchScheduler;
  /** Rows waiting at most before reads are refused (default DEFAULT_MAX_PENDING). */
  maxPending?: number;
}

interface Batch {
  readonly rows: AuditEventTable[];
  readonly written: Promise<void>;
  readonly settle: (error?: unknown) => void;
}

/**
 * The read half of the audit trail, written by group commit: a read's answer leaves only once its
 * row is committed (HIPAA §164.312(b): a `kill -9` right after an answer must not leave a hole), yet
 * reads do not each pay a transaction. Rows recorded in the same turn of the event loop form one
 * batch, written as one INSERT (500 rows per statement at most); rows recorded while a batch is
 * being written wait for it and go in the next one, at once. A write that fails refuses every read
 * of its batch (503, logged once per outage, counted in the metrics): PHI is never handed out
 * without its read on record. Changes are not recorded here: their rows go with the change
 * (changes/run-change.ts).
 */
export class AuditReadBuffer {
  /** The batch taking rows: written once the batch under way (if any) is. */
  private open: Batch | null = null;
  private writing: Promise<void> | null = null;
  private waiting = 0;
  private failing = false;
  private closed = false;

  constructor(private readonly options: AuditReadBufferOptions) {}

  /**
   * Records that `audit`'s actor was shown these resources, now: resolves once the rows are
   * committed, rejects with 503 SERVICE_UNAVAILABLE when they cannot be (the read must then not be
   * answered), or at once when too many rows are already waiting.
   */
  recordReads(audit: AuditContext, resources: readonly AuditedResource[]): Promise<void> {
    return this.record(audit, 'read', resources);
  }

  /**
   * Records that `audit`'s actor (a partner) asked for these resources of another clinic and was
   * refused (`access_denied`, audit/denied-access.ts): committed by the same group commit as reads.
   */
  recordDenied(audit: AuditContext, resources: readonly AuditedResource[]): Promise<void> {
    return this.record(audit, 'access_denied', resources);
  }

  private record(audit: AuditContext, action: 'read' | 'access_denied', resources: readonly AuditedResource[]): Promise<void> {
    if (resources.length === 0) return Promise.resolve();
    // After close nothing would write them: refusing loudly beats losing them.
    if (this.closed) return Promise.reject(new Error('The audit trail is closed: reads can no longer be recorded'));
    if (this.waiting + resources.length > (this.options.maxPending ?? DEFAULT_MAX_PENDING)) {
      return Promise.reject(unavailable());
    }
    const at = isoNow(this.options.clock);
    let batch = this.open;
    if (batch === null) {
      batch = this.open = newBatch();
      // With a write under way, it takes this batch when it ends (writeOpen); otherwise soon.
      if (this.writing === null)
        (this.options.scheduler ?? immediateBatchScheduler)(() => runInBackground(this.writeOpen(), () => undefined));
    }
    for (const resource of resources) batch.rows.push(auditRow(at, audit, action, resource));
    this.waiting += resources.length;
    this.options.metrics?.auditBufferedReads.set(this.waiting);
    return batch.written;
  }

  /** Rows recorded and not yet written. */
  get size(): number {
    return this.waiting;
  }

  /** Resolves once every row recorded before this call has been written or refused. */
  async flush(): Promise<void> {
    const pending = [this.writing, this.open?.written].filter((p): p is Promise<void> => p !== null && p !== undefined);
    await Promise.allSettled(pending);
  }

  /** Refuses further reads and waits for the rows already recorded (graceful shutdown, before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    // The batch taking rows may not have been scheduled yet (or its scheduler is held): write it now.
    await this.writeOpen();
    await this.flush();
  }

  /** Writes the open batch, then the one that filled meanwhile, and so on until none is open. */
  private async writeOpen(): Promise<void> {
    if (this.writing !== null) return;
    for (let batch = this.takeOpen(); batch !== null; batch = this.takeOpen()) {
      const run = this.write(batch);
      this.writing = run;
      await run;
      this.writing = null;
    }
  }

  private takeOpen(): Batch | null {
    const batch = this.open;
    this.open = null;
    return batch;
  }

  private async write(batch: Batch): Promise<void> {
    try {
      await insertAuditEvents(this.options.db, batch.rows);
      batch.settle();
      if (this.failing) {
        this.failing = false;
        this.options.logger.info('audit trail: reads are written again');
      }
    } catch (error) {
      this.options.metrics?.auditFlushFailures.inc();
      if (!this.failing) {
        this.failing = true;
        this.options.logger.warn(
          { err: error, refused: batch.rows.length },
          'audit trail: writing reads failed; those reads are refused (503)',
        );
      }
      batch.settle(error ?? new Error('audit write failed'));
    } finally {
      this.waiting -= batch.rows.length;
      this.options.metrics?.auditBufferedReads.set(this.waiting);
    }
  }
}

const unavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 503, 'The audit trail cannot be written right now: try again shortly');

function newBatch(): Batch {
  let settle: Batch['settle'] = () => undefined;
  const written = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error instanceof AppError ? error : unavailable()));
  });
  // A batch whose requests have all gone (refused, or closed) must not be an unhandled rejection.
  written.catch(() => undefined);
  return { rows: [], written, settle };
}
