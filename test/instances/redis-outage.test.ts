import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { killPrivateRedises, startPrivateRedis } from '../helpers/private-redis.js';
import { createTestDatabase, DIALECTS } from '../helpers/test-db.js';
import {
  databaseUrlOf,
  killServerProcesses,
  startServerProcess,
  type ServerProcess,
  PRODUCTION_BEHIND_PROXY,
} from '../helpers/server-process.js';
import { call, createPartner, logLines, OPERATOR_TOKEN } from './support.js';

const CARRIERS = '/api/external/carriers';
const LIMIT = 1000;

afterAll(async () => {
  await killServerProcesses();
  await killPrivateRedises();
});

const warnings = (server: ServerProcess) => logLines(server).filter((line) => line.msg.startsWith('Redis is unreachable'));
const readiness = async (server: ServerProcess) => (await call(server, 'GET', '/readyz')).status;

describe.skipIf(!DIALECTS.includes('postgres'))('Redis killed and restarted under two instances', { timeout: 120_000 }, () => {
  it('when Redis dies mid-traffic, then both keep serving, log one warning, are not ready, and recover by themselves when it returns', async () => {
    const redis = await startPrivateRedis();
    const database = await createTestDatabase('postgres');
    try {
      const env = {
        ...PRODUCTION_BEHIND_PROXY,
        ADMIN_TOKEN: OPERATOR_TOKEN,
        DATABASE_URL: databaseUrlOf(database),
        REDIS_URL: redis.url(0),
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        RUN_WORKER: 'false',
        LOG_LEVEL: 'warn',
      };
      const [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
      const servers = [first, second];
      const { apiKey } = await createPartner(first);
      for (const server of servers) expect(await readiness(server)).toBe(200);

      // Traffic runs on both while Redis is killed under it.
      const traffic = (async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 40; i++)
          statuses.push((await call(i % 2 === 0 ? first : second, 'GET', CARRIERS, { apiKey })).status);
        return statuses;
      })();
      await redis.kill();
      expect(new Set(await traffic)).toEqual(new Set([200]));

      for (const server of servers) {
        await eventually(async () => (await readiness(server)) === 503);
        const answer = await call(server, 'GET', '/readyz');
        expect(answer.body.error.message).toMatch(/^Redis is not reachable/);
        for (let i = 0; i < 5; i++) expect((await call(server, 'GET', CARRIERS, { apiKey })).status).toBe(200);
        expect(warnings(server)).toHaveLength(1);
        expect(warnings(server)[0]?.level).toBe(40);
      }

      await redis.restart();
      for (const server of servers) await eventually(async () => (await readiness(server)) === 200);

      // Shared again: the restarted (empty) Redis counts for both instances.
      const a = await call(first, 'GET', CARRIERS, { apiKey });
      const b = await call(second, 'GET', CARRIERS, { apiKey });
      const sameWindow = a.headers.get('x-ratelimit-reset') === b.headers.get('x-ratelimit-reset');
      expect(Number(b.headers.get('x-ratelimit-remaining'))).toBe(
        sameWindow ? Number(a.headers.get('x-ratelimit-remaining')) - 1 : LIMIT - 1,
      );
      for (const server of servers) expect(warnings(server)).toHaveLength(1);
    } finally {
      await killServerProcesses();
      await database.drop();
    }
  });
});
