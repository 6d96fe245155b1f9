import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses, sandboxCredentials, startServerProcess } from '../helpers/server-process.js';

/**
 * examples/walkthrough.sh, the README's partner flow, run as a partner developer runs it: bash and
 * curl against a development server started as `npm start` starts it (the built server, its first
 * start on an empty database printing the sandbox clinic and key).
 */

const WALKTHROUGH = path.resolve(import.meta.dirname, '../../examples/walkthrough.sh');

afterAll(killServerProcesses);

// The bound catches a hang, not a slow run: alone the two runs take about 6 s; on a loaded 2-core CI
// machine (the whole suite beside it) they once took 36 s.
describe('examples/walkthrough.sh', { timeout: 120_000 }, () => {
  let variables: Record<string, string>;

  beforeAll(async () => {
    const server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:' });
    const { clinicId, apiKey } = sandboxCredentials(server);
    // No receiver is needed: the server itself answers the test event (404, "not delivered").
    variables = { BASE: server.baseUrl, KEY: apiKey, CLINIC: clinicId, WEBHOOK_URL: `${server.baseUrl}/webhooks` };
  });

  async function walkthrough(overrides: Record<string, string> = {}): Promise<string> {
    const { stdout } = await promisify(execFile)('bash', [WALKTHROUGH], { env: { ...process.env, ...variables, ...overrides } });
    return stdout;
  }

  it('when it runs twice against a development server, then both runs succeed and the second reuses the webhook endpoint', async () => {
    const first = await walkthrough();
    expect(first).toMatch(/^ORDER=[0-9a-f-]{36}$/m);
    expect(first).toMatch(/^status shipped, tracking number \d{12}$/m);
    expect(first).toContain('refill request open, its order pending');
    expect(first).toMatch(/^registered: WEBHOOK_ID=[0-9a-f-]{36}$/m);
    expect(first).toMatch(/^WEBHOOK_SECRET=whsec_/m);

    const second = await walkthrough();
    expect(second).toMatch(/^already registered: WEBHOOK_ID=[0-9a-f-]{36}/m);
    expect(second).not.toMatch(/^WEBHOOK_SECRET=/m);
    expect(second).toMatch(/^Done: ORDER=/m);
  });

  it('when a call is refused, then it stops with a non-zero status and shows the answer', async () => {
    const failure = await walkthrough({ KEY: 'dev_not_a_key' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain('GET /api/external/carriers answered 401');
    expect((failure as { stdout: string }).stdout).not.toContain('Done:');
  });
});
