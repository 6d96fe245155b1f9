// The rate-limit count of a composite ceiling, as the project counts (src/http/rate-limit-store.ts,
// redis-rate-limit-store.ts): fixed calendar windows per key digest, an address's failed
// authentications blocking unknown keys, a key marked known once it authenticated. In this process's
// memory; with BENCH_REDIS_URL, in Redis by the project's own script, one round trip a request (and
// the same fallback to memory while Redis is away).
import process from 'node:process';
import { Redis } from 'ioredis';

const windowOf = (now, windowMs) => {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, resetAt: start + windowMs };
};

function memoryStore() {
  const windows = new Map();
  const known = new Map();
  let lastSweep = 0;
  const count = (bucket, windowMs, now) => {
    if (now - lastSweep >= windowMs) {
      lastSweep = now;
      for (const [name, window] of windows) if (window.resetAt <= now) windows.delete(name);
      for (const [marker, until] of known) if (until <= now) known.delete(marker);
    }
    const { resetAt } = windowOf(now, windowMs);
    const current = windows.get(bucket);
    if (current && current.resetAt === resetAt) {
      current.count += 1;
      return { ...current };
    }
    windows.set(bucket, { count: 1, resetAt });
    return { count: 1, resetAt };
  };
  return {
    async hit(bucket, windowMs, now) {
      return count(bucket, windowMs, now);
    },
    async admitKey({ keyBucket, addressBucket, knownMarker, limit, windowMs, now }) {
      const isKnown = (known.get(knownMarker) ?? 0) > now;
      if (!isKnown) {
        const { resetAt } = windowOf(now, windowMs);
        const failures = windows.get(addressBucket);
        const failed = failures && failures.resetAt === resetAt ? failures.count : 0;
        if (failed >= limit) return { admitted: false, address: { count: failed, resetAt } };
      }
      return { admitted: true, key: count(keyBucket, windowMs, now), known: isKnown };
    },
    async markKnown(marker, ttlMs, now) {
      if (known.size >= 100_000) known.clear();
      known.set(marker, now + ttlMs);
    },
  };
}

/** The project's scripts, word for word (redis-rate-limit-store.ts). */
const HIT = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;
const ADMIT_KEY = `
local known = redis.call('EXISTS', KEYS[3])
if known == 0 then
  local failures = tonumber(redis.call('GET', KEYS[2]) or '0')
  if failures >= tonumber(ARGV[1]) then return {0, failures} end
end
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, count, known}`;
const PREFIX = 'pf:rl:';

function redisStore(url) {
  // The project's connection options (src/redis/redis-connection.ts): no offline queue, no retries.
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  client.on('error', () => undefined);
  client.defineCommand('pfRateLimitHit', { numberOfKeys: 1, lua: HIT });
  client.defineCommand('pfRateLimitAdmitKey', { numberOfKeys: 3, lua: ADMIT_KEY });
  const fallback = memoryStore();
  const counter = (bucket, start) => `${PREFIX}${bucket}:${start}`;
  return {
    ready: new Promise((resolve) => client.once('ready', resolve)),
    async hit(bucket, windowMs, now) {
      const { start, resetAt } = windowOf(now, windowMs);
      try {
        return { count: await client.pfRateLimitHit(counter(bucket, start), 2 * windowMs), resetAt };
      } catch {
        return fallback.hit(bucket, windowMs, now);
      }
    },
    async admitKey(input) {
      const { start, resetAt } = windowOf(input.now, input.windowMs);
      try {
        const reply = await client.pfRateLimitAdmitKey(
          counter(input.keyBucket, start),
          counter(input.addressBucket, start),
          PREFIX + input.knownMarker,
          input.limit,
          2 * input.windowMs,
        );
        return reply[0] === 0
          ? { admitted: false, address: { count: reply[1], resetAt } }
          : { admitted: true, key: { count: reply[1], resetAt }, known: reply[2] === 1 };
      } catch {
        return fallback.admitKey(input);
      }
    },
    async markKnown(marker, ttlMs, now) {
      try {
        await client.set(PREFIX + marker, '1', 'PX', ttlMs);
      } catch {
        await fallback.markKnown(marker, ttlMs, now);
      }
    },
    close: () => client.quit().catch(() => client.disconnect()),
  };
}

/** The store of this process: Redis with BENCH_REDIS_URL, else memory. Resolves once it can count. */
export async function openRateLimitStore() {
  if (!process.env.BENCH_REDIS_URL) return { ...memoryStore(), close: async () => undefined };
  const store = redisStore(process.env.BENCH_REDIS_URL);
  await store.ready;
  return store;
}
