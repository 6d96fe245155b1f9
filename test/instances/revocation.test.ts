import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_DATA_ENCRYPTION_KEY } from '../helpers/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import {
  buildServer,
  databaseUrlOf,
  killServerProcesses,
  startServerProcess,
  type ServerProcess,
  PRODUCTION_BEHIND_PROXY,
} from '../helpers/server-process.js';
import { call, createPartner, OPERATOR_TOKEN, sharedRedisUrl } from './support.js';

const redisUrl = inject('redisUrl');
const CARRIERS = '/api/external/carriers';

afterAll(killServerProcesses);

/**
 * Every request looks its key up in the database (there is no per-instance key cache), so a
 * revocation committed by one process is seen by every other on its next request.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('revocation across instances', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let first: ServerProcess;
  let second: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    env = {
      ...PRODUCTION_BEHIND_PROXY,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATABASE_URL: databaseUrlOf(database),
      RUN_WORKER: 'false',
      RATE_LIMIT_PER_MINUTE: '1000',
      ...(redisUrl ? { REDIS_URL: sharedRedisUrl(redisUrl) } : {}),
    };
    [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    await killServerProcesses();
    await database.drop();
  });

  it('when a key is revoked through one instance\u2019s operator API, then the other refuses it on its next request', async () => {
    const { apiKey, apiKeyId } = await createPartner(first);
    expect((await call(second, 'GET', CARRIERS, { apiKey })).status).toBe(200);
    expect((await call(first, 'GET', CARRIERS, { apiKey })).status).toBe(200);

    expect((await call(first, 'DELETE', `/api/admin/api-keys/${apiKeyId}`, { operator: true })).status).toBe(200);

    const refused = await call(second, 'GET', CARRIERS, { apiKey });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: 'Unauthorized: API key has been revoked' });
    expect((await call(first, 'GET', CARRIERS, { apiKey })).status).toBe(401);
  });

  it('when a key is revoked with the command line, then both running instances refuse it on their next request', async () => {
    const { apiKey, apiKeyId } = await createPartner(second);
    for (const server of [first, second]) expect((await call(server, 'GET', CARRIERS, { apiKey })).status).toBe(200);

    const cli = path.join(path.dirname(await buildServer()), 'cli', 'admin.js');
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'revoke-key', '--key-id', apiKeyId], {
      env: { PATH: process.env.PATH ?? '', DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY, ...env },
    });
    expect(JSON.parse(stdout)).toMatchObject({ api_key_id: apiKeyId, revoked_at: expect.any(String) });

    for (const server of [second, first]) {
      const refused = await call(server, 'GET', CARRIERS, { apiKey });
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toBe('Unauthorized: API key has been revoked');
    }
  });
});
