import { windowOf } from '../contracts/rate-limit-buckets.js';

/** A bucket's count in the window that contains a given instant, and when that window ends. */
export interface WindowCount {
  /** Requests counted so far in the window (the current one included, when it was counted). */
  count: number;
  /** When the window ends, epoch milliseconds. */
  resetAt: number;
}

/** What a request presenting an API key is allowed before the key is looked up. */
export type KeyAdmission =
  /** Counted against the key's bucket; `known` says the key has authenticated before. */
  | { admitted: true; key: WindowCount; known: boolean }
  /** Refused: its address has used up its failed authentications, and the key is not known. */
  | { admitted: false; address: WindowCount };

export interface AdmitKeyInput {
  /** The bucket of the presented key (a digest of it: the key itself is never stored). */
  keyBucket: string;
  /** The bucket of the client address's failed authentications. */
  addressBucket: string;
  /** Marks a key that has authenticated before (see `markKnown`). */
  knownMarker: string;
  limit: number;
  windowMs: number;
  now: number;
}

/**
 * Fixed-window request counters. The windows are calendar-aligned (`floor(now / windowMs)`) on the
 * caller's clock, so every instance and every store agrees on where a window starts and ends. The
 * in-memory store serves one instance; the Redis store implements the same interface for several.
 */
export interface RateLimitStore {
  /** Counts one request for `bucket` in the window that contains `now`. */
  hit(bucket: string, windowMs: number, now: number): Promise<WindowCount>;
  /**
   * Takes back one request that `hit` counted with the same `now` (never below zero): for a
   * count taken before the outcome was known, once the outcome says it should not count.
   */
  release(bucket: string, windowMs: number, now: number): Promise<void>;
  /**
   * In one step (one round trip for a shared store): refuses when the address's failure count has
   * reached `limit` and the key is not known, so that the database is not asked; otherwise counts
   * one request for the key.
   */
  admitKey(input: AdmitKeyInput): Promise<KeyAdmission>;
  /** Remembers that a key authenticated, for `ttlMs` after `now`: an address blocked for failures does not block it. */
  markKnown(marker: string, ttlMs: number, now: number): Promise<void>;
  /**
   * Each bucket's count in the window that contains `now`, without counting anything (0 for a
   * bucket not counted in it): what the partner portal's overview shows. One round trip for a shared store.
   */
  peek(buckets: readonly string[], windowMs: number, now: number): Promise<WindowCount[]>;
  close?(): Promise<void>;
}

/** Bounds the known-key markers one process remembers (each is a short digest). */
const MAX_KNOWN = 100_000;

/** One process's counters; stale windows are swept so memory stays bounded by active clients. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, WindowCount>();
  private readonly known = new Map<string, number>();
  private lastSweep = 0;

  hit(bucket: string, windowMs: number, now: number): Promise<WindowCount> {
    return Promise.resolve({ ...this.count(bucket, windowMs, now) });
  }

  release(bucket: string, windowMs: number, now: number): Promise<void> {
    const current = this.windows.get(bucket);
    if (current && current.resetAt === windowOf(now, windowMs).resetAt && current.count > 0) current.count -= 1;
    return Promise.resolve();
  }

  admitKey(input: AdmitKeyInput): Promise<KeyAdmission> {
    const { keyBucket, addressBucket, knownMarker, limit, windowMs, now } = input;
    const knownUntil = this.known.get(knownMarker);
    const known = knownUntil !== undefined && knownUntil > now;
    if (!known) {
      const failures = this.current(addressBucket, windowMs, now);
      if (failures.count >= limit) return Promise.resolve({ admitted: false, address: failures });
    }
    return Promise.resolve({ admitted: true, key: { ...this.count(keyBucket, windowMs, now) }, known });
  }

  markKnown(marker: string, ttlMs: number, now: number): Promise<void> {
    // A crude bound: forgetting every marker only means known keys behind a blocked address wait
    // for the window's end, as unknown ones do.
    if (this.known.size >= MAX_KNOWN) this.known.clear();
    this.known.set(marker, now + ttlMs);
    return Promise.resolve();
  }

  peek(buckets: readonly string[], windowMs: number, now: number): Promise<WindowCount[]> {
    return Promise.resolve(buckets.map((bucket) => this.current(bucket, windowMs, now)));
  }

  private count(bucket: string, windowMs: number, now: number): WindowCount {
    this.sweep(now, windowMs);
    const { resetAt } = windowOf(now, windowMs);
    const current = this.windows.get(bucket);
    if (current && current.resetAt === resetAt) {
      current.count += 1;
      return current;
    }
    const fresh = { count: 1, resetAt };
    this.windows.set(bucket, fresh);
    return fresh;
  }

  private current(bucket: string, windowMs: number, now: number): WindowCount {
    const { resetAt } = windowOf(now, windowMs);
    const current = this.windows.get(bucket);
    return { count: current && current.resetAt === resetAt ? current.count : 0, resetAt };
  }

  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    for (const [marker, until] of this.known) if (until <= now) this.known.delete(marker);
  }
}
