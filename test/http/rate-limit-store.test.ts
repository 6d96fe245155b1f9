import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { RedisRateLimitStore } from '../../src/http/redis-rate-limit-store.js';
import type { RedisConnection } from '../../src/redis/redis-connection.js';

const WINDOW = 60_000;
/** 10 seconds into a minute. */
const NOW = Date.parse('2031-03-04T05:06:10.000Z');
const WINDOW_END = Date.parse('2031-03-04T05:07:00.000Z');

describe('the in-memory rate-limit store', () => {
  it('when buckets are peeked, then each one’s count of the window is read and nothing is counted', async () => {
    const store = new MemoryRateLimitStore();
    await store.hit('key:a', WINDOW, NOW);
    await store.hit('key:a', WINDOW, NOW + 1);
    expect(await store.peek(['key:a', 'key:never'], WINDOW, NOW + 2)).toEqual([
      { count: 2, resetAt: WINDOW_END },
      { count: 0, resetAt: WINDOW_END },
    ]);
    expect(await store.peek(['key:a'], WINDOW, NOW + 3)).toEqual([{ count: 2, resetAt: WINDOW_END }]);
    expect(await store.hit('key:a', WINDOW, NOW + 4)).toEqual({ count: 3, resetAt: WINDOW_END });
  });

  it('when the window has ended, then a peek reads 0 for the new one', async () => {
    const store = new MemoryRateLimitStore();
    await store.hit('key:b', WINDOW, NOW);
    expect(await store.peek(['key:b'], WINDOW, WINDOW_END)).toEqual([{ count: 0, resetAt: WINDOW_END + WINDOW }]);
  });

  it('when nothing is asked, then nothing is answered', async () => {
    expect(await new MemoryRateLimitStore().peek([], WINDOW, NOW)).toEqual([]);
  });
});

describe('the Redis rate-limit store while Redis is away', () => {
  it('when Redis cannot be reached, then a peek reads the counts this instance kept in memory meanwhile', async () => {
    const unreachable = {
      client: { defineCommand: () => undefined },
      run: () => Promise.reject(new Error('connect ECONNREFUSED')),
    } as unknown as RedisConnection;
    const store = new RedisRateLimitStore(unreachable, 'pf:test:away:');
    await store.hit('key:away', WINDOW, NOW);
    await store.hit('key:away', WINDOW, NOW);
    expect(await store.peek(['key:away', 'key:other'], WINDOW, NOW)).toEqual([
      { count: 2, resetAt: WINDOW_END },
      { count: 0, resetAt: WINDOW_END },
    ]);
  });
});
