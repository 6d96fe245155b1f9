import type { Logger } from 'pino';
import { isoNow, type Clock } from '../clock.js';
import type { DbOrTrx } from '../db/database.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { addDeprecationUsage } from './deprecation.repository.js';
import type { DeprecationUsageTable } from './deprecation.tables.js';

/** What a use is counted against: the credential the request came with. */
export type CredentialType = 'api_key' | 'oauth_client';

/** How often the server writes what it has counted (usage-flush.ts). */
export const USAGE_FLUSH_INTERVAL_MS = 60_000;

export interface DeprecationUsageTallyOptions {
  db: DbOrTrx;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Counts the uses of deprecated things per credential, in this instance's memory: a use costs a
 * map update on the request's path and never a query. What is counted is written in batches
 * (`flush`: every USAGE_FLUSH_INTERVAL_MS by the server's timer, and at close) by an upsert that
 * adds (deprecation.repository.ts), so that any number of instances add up. A write that fails
 * keeps its counts for the next one; only a failure at close loses them (logged).
 *
 * At most one row per code and credential waits here, so memory is bounded by the registry's size
 * times the number of credentials that use it, whatever the traffic.
 */
export class DeprecationUsageTally {
  private pending = new Map<string, DeprecationUsageTable>();
  /** The write under way (or the last one); each flush runs after it, so writes never overlap. */
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: DeprecationUsageTallyOptions) {}

  /** Counts one use of `code` by the request's credential (nothing when it has none, or once closed). */
  record(code: string, identity: PartnerIdentity): void {
    if (this.closed) return;
    const credential = credentialOf(identity);
    if (!credential) return;
    const key = `${code}\0${credential.type}\0${credential.id}`;
    const at = isoNow(this.options.clock);
    const row = this.pending.get(key);
    if (row) {
      row.use_count += 1;
      if (at > row.last_seen_at) row.last_seen_at = at;
      return;
    }
    this.pending.set(key, {
      code,
      credential_type: credential.type,
      credential_id: credential.id,
      clinic_id: identity.clinicId,
      use_count: 1,
      first_seen_at: at,
      last_seen_at: at,
    });
  }

  /** Rows counted and not yet written (one per code and credential). */
  get size(): number {
    return this.pending.size;
  }

  /** Writes what has been counted so far; resolves once it is written, or kept for the next flush when the write failed. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** Counts nothing more and writes what is left (graceful shutdown, before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    if (this.pending.size > 0) {
      this.options.logger.warn({ rows: this.pending.size }, 'deprecation usage: counts not written at close are lost');
      this.pending.clear();
    }
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await addDeprecationUsage(this.options.db, [...batch.values()]);
    } catch (error) {
      this.options.logger.warn(
        { err: error, rows: batch.size },
        'deprecation usage: writing the counts failed; kept for the next flush',
      );
      for (const [key, row] of batch) this.putBack(key, row);
    }
  }

  /** A row of a failed write, merged with what was counted meanwhile. */
  private putBack(key: string, row: DeprecationUsageTable): void {
    const newer = this.pending.get(key);
    if (!newer) {
      this.pending.set(key, row);
      return;
    }
    newer.use_count += row.use_count;
    if (row.first_seen_at < newer.first_seen_at) newer.first_seen_at = row.first_seen_at;
    if (row.last_seen_at > newer.last_seen_at) newer.last_seen_at = row.last_seen_at;
  }
}

function credentialOf(identity: PartnerIdentity): { type: CredentialType; id: string } | null {
  if (identity.apiKeyId !== undefined) return { type: 'api_key', id: identity.apiKeyId };
  if (identity.oauthClientId !== undefined) return { type: 'oauth_client', id: identity.oauthClientId };
  return null;
}
