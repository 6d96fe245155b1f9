/**
 * Fixed-window request counters. The in-memory store serves one instance; a shared store
 * (Redis) implements the same interface for several instances.
 */
export interface RateLimitStore {
  /**
   * Counts one request for `key` in the window that contains `now` and returns the count so far
   * in that window (this request included) and when the window ends (epoch milliseconds).
   */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  close?(): Promise<void>;
}

/** One process's counters; stale windows are swept so memory stays bounded by active clients. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    this.sweep(now, windowMs);
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const resetAt = windowStart + windowMs;
    const current = this.windows.get(key);
    if (current && current.resetAt === resetAt) {
      current.count += 1;
      return Promise.resolve({ count: current.count, resetAt });
    }
    const fresh = { count: 1, resetAt };
    this.windows.set(key, fresh);
    return Promise.resolve({ ...fresh });
  }

  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
