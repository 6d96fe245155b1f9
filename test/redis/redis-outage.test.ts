import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { killPrivateRedises, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';

const CARRIERS = '/api/external/carriers';

/** Captures the app's JSON log lines. */
function logCapture() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as never);
      done();
    },
  });
  return { stream, lines, about: (words: RegExp) => lines.filter((line) => words.test(line.msg)) };
}

/** redis_up as GET /metrics serves it (registered only where Redis is configured). */
async function gauge(t: TestApp): Promise<number | undefined> {
  const text = await t.ctx.metrics.registry.getSingleMetricAsString('redis_up');
  const value = /^redis_up (\S+)$/m.exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
}
async function outages(t: TestApp): Promise<number> {
  return (await t.ctx.metrics.redisOutages.get()).values[0]?.value ?? 0;
}

describe('a Redis outage, in process', { timeout: 60_000 }, () => {
  let redis: PrivateRedis;
  let t: TestApp;
  let apiKey: string;
  const logs = logCapture();

  beforeAll(async () => {
    redis = await startPrivateRedis();
    t = await TestApp.start({
      dialect: 'sqlite',
      env: { REDIS_URL: redis.url(3), RATE_LIMIT_PER_MINUTE: '1000', LOG_LEVEL: 'info' },
      logStream: logs.stream,
    });
    ({ apiKey } = await t.createClinic());
  });
  afterAll(async () => {
    await t.close();
    await killPrivateRedises();
  });

  const get = (): Promise<Reply> => t.partner(apiKey).get(CARRIERS);
  const ready = async () => (await t.request('GET', '/readyz')).status;

  it('when Redis is killed and comes back, then requests keep succeeding, one warning is logged, readiness follows, and it recovers by itself', async () => {
    expect(await ready()).toBe(200);
    expect(await gauge(t)).toBe(1);
    const shared = await get();
    expect(shared.status).toBe(200);
    expect(shared.headers['x-ratelimit-remaining']).toBe('999');

    await redis.kill();
    for (let i = 0; i < 10; i++) {
      const during = await get();
      expect(during.status).toBe(200);
      expect(during.headers['x-ratelimit-limit']).toBe('1000');
    }
    await eventually(async () => (await ready()) === 503);
    const notReady = await t.request('GET', '/readyz');
    expect(notReady.body.error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringMatching(/^Redis is not reachable/),
    });
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);

    expect(logs.about(/^Redis is unreachable/)).toHaveLength(1);
    expect(logs.about(/^Redis is unreachable/)[0]?.level).toBe(40);
    expect(await outages(t)).toBe(1);
    expect(await gauge(t)).toBe(0);

    await redis.restart();
    await eventually(async () => (await ready()) === 200);
    expect(logs.about(/^Redis is reachable again/)).toHaveLength(1);
    expect(logs.about(/^Redis is reachable again/)[0]?.level).toBe(30);
    expect(await gauge(t)).toBe(1);
    // Counting is shared again: the restarted Redis (empty) counts this key from one.
    expect((await get()).headers['x-ratelimit-remaining']).toBe('999');

    await redis.kill();
    await eventually(async () => (await ready()) === 503);
    expect(await outages(t)).toBe(2);
    expect(logs.about(/^Redis is unreachable/)).toHaveLength(2);
    await redis.restart();
    await eventually(async () => (await ready()) === 200);
  });

  it('when the log lines name Redis, then they give its host, port and database, never a password', () => {
    const line = logs.about(/^Redis is unreachable/)[0] as unknown as { redis: string };
    expect(line.redis).toBe(`127.0.0.1:${redis.port}/3`);
  });
});

describe('a Redis that stops answering', { timeout: 60_000 }, () => {
  it('when Redis hangs, then requests still get their answer (commands time out) and it recovers when Redis answers again', async () => {
    const redis = await startPrivateRedis();
    const logs = logCapture();
    const t = await TestApp.start({
      dialect: 'sqlite',
      env: { REDIS_URL: redis.url(), LOG_LEVEL: 'warn' },
      logStream: logs.stream,
    });
    try {
      const { apiKey } = await t.createClinic();
      expect((await t.partner(apiKey).get(CARRIERS)).status).toBe(200);
      redis.pause();
      // Without a command timeout this request would wait for Redis forever (and the test time out).
      for (let i = 0; i < 3; i++) expect((await t.partner(apiKey).get(CARRIERS)).status).toBe(200);
      expect((await t.request('GET', '/readyz')).status).toBe(503);
      expect(await outages(t)).toBe(1);
      redis.resume();
      await eventually(async () => (await t.request('GET', '/readyz')).status === 200);
      expect(await gauge(t)).toBe(1);
      expect(logs.about(/^Redis is unreachable/)).toHaveLength(1);
    } finally {
      redis.resume();
      await t.close();
      await redis.kill();
    }
  });
});

describe('closing the runtime', () => {
  it('when the runtime closes, then its Redis connection is closed and no outage is reported', async () => {
    const redis = await startPrivateRedis();
    const logs = logCapture();
    const t = await TestApp.start({
      dialect: 'sqlite',
      env: { REDIS_URL: redis.url(), LOG_LEVEL: 'info' },
      logStream: logs.stream,
    });
    const client = t.ctx.redis?.client;
    await t.close();
    try {
      expect(client?.status).toBe('end');
      expect(await outages(t)).toBe(0);
      expect(logs.about(/Redis/)).toHaveLength(0);
    } finally {
      await redis.kill();
    }
  });
});

describe('a Redis unreachable from the start', () => {
  it('when the server starts while Redis is down, then it serves, is not ready, and counts one outage', async () => {
    const redis = await startPrivateRedis();
    await redis.kill();
    const logs = logCapture();
    const t = await TestApp.start({
      dialect: 'sqlite',
      env: { REDIS_URL: redis.url(), LOG_LEVEL: 'warn' },
      logStream: logs.stream,
    });
    try {
      const { apiKey } = await t.createClinic();
      expect((await t.partner(apiKey).get(CARRIERS)).status).toBe(200);
      expect((await t.request('GET', '/readyz')).status).toBe(503);
      expect(await outages(t)).toBe(1);
      expect(logs.about(/^Redis is unreachable/)).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
