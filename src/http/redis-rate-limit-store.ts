import type { Result } from 'ioredis';
import type { RedisConnection } from '../redis/redis-connection.js';
import { windowOf } from '../contracts/rate-limit-buckets.js';
import {
  MemoryRateLimitStore,
  type AdmitKeyInput,
  type KeyAdmission,
  type RateLimitStore,
  type WindowCount,
} from './rate-limit-store.js';

/** Every key this store writes starts with this, so that a Redis shared with others stays readable. */
export const RATE_LIMIT_KEY_PREFIX = 'pf:rl:';

/*
 * The counting runs as Lua scripts: Redis runs a script alone, so INCR and its expiry are one atomic
 * step, in one round trip, however many instances count at once. A counter's key names its window
 * (`<bucket>:<window start>`); it expires one window after it ends, which also covers instances
 * whose clocks differ by a little.
 */

/** KEYS[1] counter; ARGV[1] ttl ms → the count, this request included. */
const HIT = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** KEYS[1] counter → the count after taking one back; never below zero, never creates the key. */
const RELEASE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * KEYS[1] the key's counter, KEYS[2] the address's failure counter, KEYS[3] the key's known marker;
 * ARGV[1] limit, ARGV[2] ttl ms → {0, failures} refused, or {1, count, known}.
 */
const ADMIT_KEY = `
local known = redis.call('EXISTS', KEYS[3])
if known == 0 then
  local failures = tonumber(redis.call('GET', KEYS[2]) or '0')
  if failures >= tonumber(ARGV[1]) then return {0, failures} end
end
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, count, known}`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pfRateLimitHit(counter: string, ttlMs: number): Result<number, Context>;
    pfRateLimitRelease(counter: string): Result<number, Context>;
    pfRateLimitAdmitKey(
      counter: string,
      failures: string,
      knownMarker: string,
      limit: number,
      ttlMs: number,
    ): Result<[0, number] | [1, number, number], Context>;
  }
}

/**
 * Counters in Redis, shared by every instance. When Redis cannot be reached, this instance counts
 * in its own memory until it returns (the limit then holds per instance, not across them): safer
 * than not limiting at all, and no request fails or waits because of Redis.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly fallback = new MemoryRateLimitStore();

  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string = RATE_LIMIT_KEY_PREFIX,
  ) {
    redis.client.defineCommand('pfRateLimitHit', { numberOfKeys: 1, lua: HIT });
    redis.client.defineCommand('pfRateLimitRelease', { numberOfKeys: 1, lua: RELEASE });
    redis.client.defineCommand('pfRateLimitAdmitKey', { numberOfKeys: 3, lua: ADMIT_KEY });
  }

  async hit(bucket: string, windowMs: number, now: number): Promise<WindowCount> {
    const { start, resetAt } = windowOf(now, windowMs);
    try {
      const count = await this.redis.run((client) => client.pfRateLimitHit(this.counter(bucket, start), 2 * windowMs));
      return { count, resetAt };
    } catch {
      return this.fallback.hit(bucket, windowMs, now);
    }
  }

  async release(bucket: string, windowMs: number, now: number): Promise<void> {
    // Where `hit` counts: Redis, or this instance's memory while Redis is away. Should Redis come or go
    // between the two, one count is taken back from the other place (never below zero): off by one
    // for one window, no more.
    try {
      await this.redis.run((client) => client.pfRateLimitRelease(this.counter(bucket, windowOf(now, windowMs).start)));
    } catch {
      await this.fallback.release(bucket, windowMs, now);
    }
  }

  async admitKey(input: AdmitKeyInput): Promise<KeyAdmission> {
    const { start, resetAt } = windowOf(input.now, input.windowMs);
    try {
      const reply = await this.redis.run((client) =>
        client.pfRateLimitAdmitKey(
          this.counter(input.keyBucket, start),
          this.counter(input.addressBucket, start),
          this.prefix + input.knownMarker,
          input.limit,
          2 * input.windowMs,
        ),
      );
      return reply[0] === 0
        ? { admitted: false, address: { count: reply[1], resetAt } }
        : { admitted: true, key: { count: reply[1], resetAt }, known: reply[2] === 1 };
    } catch {
      return this.fallback.admitKey(input);
    }
  }

  async markKnown(marker: string, ttlMs: number, now: number): Promise<void> {
    try {
      await this.redis.run((client) => client.set(this.prefix + marker, '1', 'PX', ttlMs));
    } catch {
      await this.fallback.markKnown(marker, ttlMs, now);
    }
  }

  async peek(buckets: readonly string[], windowMs: number, now: number): Promise<WindowCount[]> {
    if (buckets.length === 0) return [];
    const { start, resetAt } = windowOf(now, windowMs);
    try {
      // A plain read (MGET): nothing is counted, and a missing counter is 0.
      const counts = await this.redis.run((client) => client.mget(...buckets.map((bucket) => this.counter(bucket, start))));
      return counts.map((count) => ({ count: count === null ? 0 : Number(count), resetAt }));
    } catch {
      // Where `hit` counts while Redis is away.
      return this.fallback.peek(buckets, windowMs, now);
    }
  }

  private counter(bucket: string, windowStart: number): string {
    return `${this.prefix}${bucket}:${windowStart}`;
  }
}
