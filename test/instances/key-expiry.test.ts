import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import {
  databaseUrlOf,
  killServerProcesses,
  PRODUCTION_BEHIND_PROXY,
  startServerProcess,
  type ServerProcess,
} from '../helpers/server-process.js';
import { call, createPartner, OPERATOR_TOKEN, sharedRedisUrl } from './support.js';

const redisUrl = inject('redisUrl');
const CARRIERS = '/api/external/carriers';
const EXPIRED = 'Unauthorized: API key has expired';
/** test/helpers/clock-ahead.mjs: the later instance runs this far in the future, as one would after waiting. */
const CLOCK_AHEAD = pathToFileURL(path.resolve(import.meta.dirname, '../helpers/clock-ahead.mjs')).href;
const TWO_HOURS_MS = 2 * 60 * 60_000;

afterAll(killServerProcesses);

/**
 * Expiry, like revocation, is checked on every request against the key's row (no per-instance key
 * cache): a key rolled through one instance stops working on every instance once its expiry has
 * passed. The later instance runs two hours ahead (clock-ahead.mjs) instead of the test waiting.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('key expiry across instances', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let now: ServerProcess;
  let later: ServerProcess;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = {
      ...PRODUCTION_BEHIND_PROXY,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATABASE_URL: databaseUrlOf(database),
      RUN_WORKER: 'false',
      RATE_LIMIT_PER_MINUTE: '1000',
      ...(redisUrl ? { REDIS_URL: sharedRedisUrl(redisUrl) } : {}),
    };
    [now, later] = await Promise.all([
      startServerProcess(env),
      startServerProcess({
        ...env,
        NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${CLOCK_AHEAD}`].filter(Boolean).join(' '),
        CLOCK_AHEAD_MS: String(TWO_HOURS_MS),
      }),
    ]);
  });
  afterAll(async () => {
    await killServerProcesses();
    await database.drop();
  });

  it('when a key is rolled with an hour of overlap through one instance, then an instance past that hour refuses the old key and takes the new one', async () => {
    const { apiKey, apiKeyId } = await createPartner(now);
    const rolled = await call(now, 'POST', `/api/admin/api-keys/${apiKeyId}/roll`, {
      operator: true,
      body: { expires_in_seconds: 3600 },
    });
    expect(rolled.status).toBe(200);
    const successor: string = rolled.body.data.api_key;

    // Within the hour: both keys work.
    for (const key of [apiKey, successor]) expect((await call(now, 'GET', CARRIERS, { apiKey: key })).status).toBe(200);
    // Past it: the old key is refused, the new one works.
    const refused = await call(later, 'GET', CARRIERS, { apiKey });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: EXPIRED });
    expect((await call(later, 'GET', CARRIERS, { apiKey: successor })).status).toBe(200);
  });

  it('when a key is rolled with no overlap through one instance, then both instances refuse it on their next request', async () => {
    const { apiKey, apiKeyId } = await createPartner(now);
    for (const server of [now, later]) expect((await call(server, 'GET', CARRIERS, { apiKey })).status).toBe(200);
    const rolled = await call(now, 'POST', `/api/admin/api-keys/${apiKeyId}/roll`, {
      operator: true,
      body: { expires_in_seconds: 0 },
    });
    expect(rolled.status).toBe(200);
    for (const server of [later, now]) {
      expect((await call(server, 'GET', CARRIERS, { apiKey })).body.error?.message).toBe(EXPIRED);
      expect((await call(server, 'GET', CARRIERS, { apiKey: rolled.body.data.api_key })).status).toBe(200);
    }
  });
});
