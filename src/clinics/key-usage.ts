import type { Logger } from 'pino';
import { runInBackground } from '../background.js';
import type { Clock } from '../clock.js';
import type { DbOrTrx } from '../db/database.js';
import { touchApiKeyUse } from './clinic.repository.js';

/** A key's `last_used_at` is written at most once per this window (and is that coarse). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Keys remembered before those not written within the window are forgotten. */
const REMEMBERED_KEYS = 10_000;

/** Runs `write` soon, after the current turn of the event loop (default: setImmediate). */
export type UsageScheduler = (write: () => void) => void;

export interface KeyUsageRecorderOptions {
  db: DbOrTrx;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  scheduler?: UsageScheduler;
}

/**
 * When each API key was last used (issue 20, item 2), written off the request's path: the partner
 * guard records a use once the key is accepted, and this writes it after the request's turn of the
 * event loop, never making the request wait or fail for it. Coarse on purpose: a key is written at
 * most once a minute, by two rules that each suffice alone:
 *
 * - this instance remembers when it last wrote each key, and skips a use within the minute (so that
 *   a busy key costs one UPDATE a minute, not one per request), and skips too when the row it has
 *   just read already says the key was used within the minute (another instance wrote it);
 * - the UPDATE itself is conditional (`last_used_at IS NULL OR last_used_at <= now − 1 minute`), so
 *   that instances racing on one key change the row once.
 *
 * A failed write is logged (warn) and forgotten: the next use writes again. `flush()` waits for the
 * writes recorded so far (tests await it instead of sleeping; shutdown calls `close()`).
 */
export class KeyUsageRecorder {
  /** Per key: when this instance last wrote (or queued) its use, in ms of the clock. */
  private readonly lastWritten = new Map<string, number>();
  /** Uses waiting for the next write: key id → when (ISO-8601). */
  private pending = new Map<string, string>();
  private writing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: KeyUsageRecorderOptions) {}

  /** Records that `apiKeyId` was just accepted; `storedLastUsedAt` is its row's value as authentication read it. */
  record(apiKeyId: string, storedLastUsedAt: string | null): void {
    if (this.closed) return;
    const now = this.options.clock().getTime();
    const windowStart = now - LAST_USED_RESOLUTION_MS;
    if (storedLastUsedAt !== null && Date.parse(storedLastUsedAt) > windowStart) return;
    const written = this.lastWritten.get(apiKeyId);
    if (written !== undefined && written > windowStart) return;
    if (this.lastWritten.size >= REMEMBERED_KEYS) this.forgetBefore(windowStart);
    this.lastWritten.set(apiKeyId, now);
    this.pending.set(apiKeyId, new Date(now).toISOString());
    if (this.writing === null) this.schedule();
  }

  /** Resolves once every use recorded before this call has been written (or its write has failed). */
  async flush(): Promise<void> {
    while (this.writing !== null || this.pending.size > 0) await this.startWriting();
  }

  /** Takes no more uses and writes those recorded (graceful shutdown, before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private schedule(): void {
    (this.options.scheduler ?? ((write) => void setImmediate(write)))(() =>
      runInBackground(this.startWriting(), () => undefined),
    );
  }

  /** The write under way, or a new one; `writing` is cleared once it has ended, and a use recorded meanwhile is scheduled. */
  private startWriting(): Promise<void> {
    this.writing ??= this.writePending().finally(() => {
      this.writing = null;
      if (this.pending.size > 0) this.schedule();
    });
    return this.writing;
  }

  /** Writes what is pending, then what was recorded meanwhile, until nothing is. */
  private async writePending(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = this.pending;
      this.pending = new Map();
      for (const [apiKeyId, at] of batch) {
        const notAfter = new Date(Date.parse(at) - LAST_USED_RESOLUTION_MS).toISOString();
        try {
          await touchApiKeyUse(this.options.db, apiKeyId, at, notAfter);
        } catch (error) {
          // Not the partner's problem: the request was answered. The next use tries again.
          this.lastWritten.delete(apiKeyId);
          this.options.logger.warn({ err: error }, 'API key usage: writing last_used_at failed');
        }
      }
    }
  }

  private forgetBefore(windowStart: number): void {
    for (const [apiKeyId, written] of this.lastWritten) {
      if (written <= windowStart) this.lastWritten.delete(apiKeyId);
    }
  }
}
