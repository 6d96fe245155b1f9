import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RATE_LIMIT_KEY_PREFIX, RedisRateLimitStore } from '../../src/http/redis-rate-limit-store.js';
import { Metrics } from '../../src/metrics.js';
import { RedisConnection } from '../../src/redis/redis-connection.js';

const redisUrl = inject('redisUrl');
const WINDOW = 60_000;
/** 10 seconds into a minute. */
const NOW = Date.parse('2031-03-04T05:06:10.000Z');
const WINDOW_START = Date.parse('2031-03-04T05:06:00.000Z');
/** A database number of its own on the shared Redis (never flushed: every key here has a unique prefix). */
const DB = 7;

/** The shared Redis, database `db`. */
const urlOf = (db: number) => {
  const url = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
  url.pathname = `/${db}`;
  return url.toString();
};

const connect = (db = DB) => new RedisConnection(urlOf(db), { logger: pino({ level: 'silent' }), metrics: new Metrics() });

describe.skipIf(!redisUrl)('the Redis rate-limit store', () => {
  const prefix = `pf:test:${randomBytes(6).toString('hex')}:`;
  let first: RedisConnection;
  let second: RedisConnection;
  let inspect: Redis;

  beforeAll(async () => {
    [first, second] = [connect(), connect()];
    await Promise.all([first.settled(3_000), second.settled(3_000)]);
    inspect = new Redis(urlOf(DB));
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close(), inspect.quit()]);
  });

  it('when two instances count the same bucket at once, then every count from 1 to the total is handed out exactly once', async () => {
    const [a, b] = [new RedisRateLimitStore(first, prefix), new RedisRateLimitStore(second, prefix)];
    const hits = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).hit('key:concurrent', WINDOW, NOW + (i % 7))),
    );
    const counts = hits.map((hit) => hit.count).sort((x, y) => x - y);
    expect(counts).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(new Set(hits.map((hit) => hit.resetAt))).toEqual(new Set([WINDOW_START + WINDOW]));
  });

  it('when a bucket is counted, then its Redis key carries the prefix and the window, and expires within two windows', async () => {
    const store = new RedisRateLimitStore(first, prefix);
    await store.hit('ip:192.0.2.1', WINDOW, NOW);
    const key = `${prefix}ip:192.0.2.1:${WINDOW_START}`;
    expect(await inspect.get(key)).toBe('1');
    const ttl = await inspect.pttl(key);
    expect(ttl).toBeGreaterThan(WINDOW);
    expect(ttl).toBeLessThanOrEqual(2 * WINDOW);
  });

  it('when no prefix is given, then keys start with pf:rl:', () => {
    expect(RATE_LIMIT_KEY_PREFIX).toBe('pf:rl:');
  });

  it('when the window ends, then the next window counts from one again', async () => {
    const store = new RedisRateLimitStore(first, prefix);
    await store.hit('key:windows', WINDOW, NOW);
    expect(await store.hit('key:windows', WINDOW, NOW + 49_999)).toEqual({ count: 2, resetAt: WINDOW_START + WINDOW });
    expect(await store.hit('key:windows', WINDOW, WINDOW_START + WINDOW)).toEqual({
      count: 1,
      resetAt: WINDOW_START + 2 * WINDOW,
    });
  });

  it('when REDIS_URL names a database number, then the counters live in that database', async () => {
    const other = connect(9);
    await other.settled(3_000);
    const inspectOther = new Redis(urlOf(9));
    try {
      await new RedisRateLimitStore(other, prefix).hit('key:db', WINDOW, NOW);
      const key = `${prefix}key:db:${WINDOW_START}`;
      expect(await inspectOther.exists(key)).toBe(1);
      expect(await inspect.exists(key)).toBe(0);
    } finally {
      await Promise.all([other.close(), inspectOther.quit()]);
    }
  });

  it('when an address has used up its failures, then an unknown key is refused without being counted, and a known one is counted', async () => {
    const store = new RedisRateLimitStore(first, prefix);
    const input = { addressBucket: 'ip:192.0.2.50', limit: 2, windowMs: WINDOW, now: NOW };
    await store.hit('ip:192.0.2.50', WINDOW, NOW);
    const before = await store.admitKey({ ...input, keyBucket: 'key:unknown', knownMarker: 'known:unknown' });
    expect(before).toEqual({ admitted: true, key: { count: 1, resetAt: WINDOW_START + WINDOW }, known: false });

    await store.hit('ip:192.0.2.50', WINDOW, NOW);
    const refused = await store.admitKey({ ...input, keyBucket: 'key:unknown', knownMarker: 'known:unknown' });
    expect(refused).toEqual({ admitted: false, address: { count: 2, resetAt: WINDOW_START + WINDOW } });
    expect(await inspect.get(`${prefix}key:unknown:${WINDOW_START}`)).toBe('1');

    await store.markKnown('known:good', 60_000, NOW);
    expect(await inspect.pttl(`${prefix}known:good`)).toBeGreaterThan(0);
    const known = await store.admitKey({ ...input, keyBucket: 'key:good', knownMarker: 'known:good' });
    expect(known).toEqual({ admitted: true, key: { count: 1, resetAt: WINDOW_START + WINDOW }, known: true });
  });

  it('when buckets are peeked, then their counts of the window are read in one step, nothing is counted and no key is created', async () => {
    const [a, b] = [new RedisRateLimitStore(first, prefix), new RedisRateLimitStore(second, prefix)];
    await a.hit('key:peeked', WINDOW, NOW);
    await b.hit('key:peeked', WINDOW, NOW + 1);
    expect(await b.peek(['key:peeked', 'key:never-counted'], WINDOW, NOW + 2)).toEqual([
      { count: 2, resetAt: WINDOW_START + WINDOW },
      { count: 0, resetAt: WINDOW_START + WINDOW },
    ]);
    expect(await a.hit('key:peeked', WINDOW, NOW + 3)).toEqual({ count: 3, resetAt: WINDOW_START + WINDOW });
    expect(await inspect.exists(`${prefix}key:never-counted:${WINDOW_START}`)).toBe(0);
    expect(await a.peek(['key:peeked'], WINDOW, WINDOW_START + WINDOW)).toEqual([
      { count: 0, resetAt: WINDOW_START + 2 * WINDOW },
    ]);
    expect(await a.peek([], WINDOW, NOW)).toEqual([]);
  });

  it('when a count is released, then the window counts one less, never below zero, and nothing is created for a bucket never counted', async () => {
    const store = new RedisRateLimitStore(first, prefix);
    await store.hit('admin-fail:192.0.2.60', WINDOW, NOW);
    await store.hit('admin-fail:192.0.2.60', WINDOW, NOW);
    await store.release('admin-fail:192.0.2.60', WINDOW, NOW + 1);
    expect(await inspect.get(`${prefix}admin-fail:192.0.2.60:${WINDOW_START}`)).toBe('1');
    await store.release('admin-fail:192.0.2.60', WINDOW, NOW);
    await store.release('admin-fail:192.0.2.60', WINDOW, NOW);
    expect(await inspect.get(`${prefix}admin-fail:192.0.2.60:${WINDOW_START}`)).toBe('0');
    expect(await store.hit('admin-fail:192.0.2.60', WINDOW, NOW)).toEqual({ count: 1, resetAt: WINDOW_START + WINDOW });

    await store.release('admin-fail:192.0.2.61', WINDOW, NOW);
    expect(await inspect.exists(`${prefix}admin-fail:192.0.2.61:${WINDOW_START}`)).toBe(0);
  });
});
