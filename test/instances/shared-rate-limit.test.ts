import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import {
  databaseUrlOf,
  killServerProcesses,
  startServerProcess,
  type ServerProcess,
  PRODUCTION_BEHIND_PROXY,
} from '../helpers/server-process.js';
import { call, createPartner, OPERATOR_TOKEN, sharedRedisUrl, type Answer } from './support.js';

const redisUrl = inject('redisUrl');
const LIMIT = 10;
const CARRIERS = '/api/external/carriers';

/**
 * Runs a scenario on a fresh key until all its answers fell in one window. The children's clocks
 * are the machine's: a minute may end during a scenario, which then proves nothing, so it runs again
 * (on a new key); two boundaries in a row would need a scenario longer than a minute.
 */
async function inOneWindow(scenario: () => Promise<Answer[]>): Promise<Answer[]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const answers = await scenario();
    if (new Set(answers.map((answer) => answer.headers.get('x-ratelimit-reset'))).size === 1) return answers;
  }
  throw new Error('every attempt crossed a window boundary');
}

afterAll(killServerProcesses);

describe.skipIf(!DIALECTS.includes('postgres') || !redisUrl)('one rate limit across two instances', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let first: ServerProcess;
  let second: ServerProcess;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = {
      ...PRODUCTION_BEHIND_PROXY,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATABASE_URL: databaseUrlOf(database),
      REDIS_URL: sharedRedisUrl(redisUrl),
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      RUN_WORKER: 'false',
    };
    first = await startServerProcess(env);
    second = await startServerProcess(env);
    expect(first.stdout()).toContain(`rate limits: shared in Redis ${new URL(env.REDIS_URL).host}/7`);
  });
  afterAll(async () => {
    await killServerProcesses();
    await database.drop();
  });

  it('when requests alternate between the instances, then the limit holds in total and every answer\u2019s headers continue the same count', async () => {
    const answers = await inOneWindow(async () => {
      const { apiKey } = await createPartner(first);
      const out: Answer[] = [];
      for (let i = 0; i < 2 * LIMIT; i++) out.push(await call(i % 2 === 0 ? first : second, 'GET', CARRIERS, { apiKey }));
      return out;
    });
    expect(answers.map((answer) => answer.status)).toEqual([
      ...Array<number>(LIMIT).fill(200),
      ...Array<number>(LIMIT).fill(429),
    ]);
    expect(answers.map((answer) => Number(answer.headers.get('x-ratelimit-remaining')))).toEqual([
      ...Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i),
      ...Array<number>(LIMIT).fill(0),
    ]);
    expect(new Set(answers.map((answer) => answer.headers.get('x-ratelimit-limit')))).toEqual(new Set([String(LIMIT)]));
    expect(answers[LIMIT]?.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('when many requests with one key reach both instances at once, then exactly the limit succeed', async () => {
    const answers = await inOneWindow(async () => {
      const { apiKey } = await createPartner(first);
      return Promise.all(
        Array.from({ length: 4 * LIMIT }, (_, i) => call(i % 2 === 0 ? first : second, 'GET', CARRIERS, { apiKey })),
      );
    });
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(LIMIT);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(3 * LIMIT);
    const remaining = answers
      .filter((answer) => answer.status === 200)
      .map((answer) => answer.headers.get('x-ratelimit-remaining'));
    expect(new Set(remaining).size).toBe(LIMIT);
  });
});
