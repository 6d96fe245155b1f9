import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEV_OPERATOR_TOKEN_FILE } from '../../src/secrets/dev-operator-token.js';
import { bannerValue, killServerProcesses, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * What a development server started from a shell prints and keeps, for real: the built server as a
 * child process in a folder of the test's own (./data is where the development defaults live).
 */

afterEach(killServerProcesses);

/** A development server without ADMIN_TOKEN (the test helpers give one by default). */
const NO_TOKEN = { ADMIN_TOKEN: '' };

const OPERATOR_TOKEN = /operator token \([^)]*\)/;

async function listClinics(server: ServerProcess, token: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}/api/admin/clinics`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  return response.status;
}

describe('development start without ADMIN_TOKEN', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dev-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when the server starts twice on the same data folder, then the operator token is kept in data/admin-token (0600) and printed the same both times', async () => {
    const first = await startServerProcess(NO_TOKEN, { cwd: dir });
    const token = bannerValue(first, OPERATOR_TOKEN) ?? '';
    expect(first.stdout()).toContain(`operator token (kept in ${DEV_OPERATOR_TOKEN_FILE}, the same at every start;`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const file = path.join(dir, DEV_OPERATOR_TOKEN_FILE);
    expect(readFileSync(file, 'utf8').trim()).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await listClinics(first, token)).toBe(200);
    expect(await first.stop()).toBe(0);

    const second = await startServerProcess(NO_TOKEN, { cwd: dir });
    expect(bannerValue(second, OPERATOR_TOKEN)).toBe(token);
    expect(await listClinics(second, token)).toBe(200);
  });

  it('when the server starts again, then it prints the sandbox clinic seeded at the first start and how to issue it a key', async () => {
    // The first test's starts seeded the clinic; this start only finds it.
    const server = await startServerProcess(NO_TOKEN, { cwd: dir });
    const clinicId = bannerValue(server, /clinic_id/) ?? '';
    expect(clinicId).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.stdout()).toContain(`Another key: npm run admin -- issue-key --clinic ${clinicId}`);
    expect(server.stdout()).not.toContain('x-api-key:');
  });

  it('when the operator token file does not hold a token, then the server refuses to start and says what to do', async () => {
    const broken = mkdtempSync(path.join(tmpdir(), 'dev-start-broken-'));
    try {
      const first = await startServerProcess(NO_TOKEN, { cwd: broken });
      await first.stop();
      const file = path.join(broken, DEV_OPERATOR_TOKEN_FILE);
      // An empty file, as an editor that truncated it would leave.
      writeFileSync(file, '\n');
      const server = await startServerProcess(NO_TOKEN, { cwd: broken }).catch((error: unknown) => error);
      expect(String(server)).toContain(`The operator token file ${DEV_OPERATOR_TOKEN_FILE} does not hold a token`);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('when the database is in memory, then a token for the run only is printed and no file is written', async () => {
    const memory = mkdtempSync(path.join(tmpdir(), 'dev-start-memory-'));
    try {
      const server = await startServerProcess({ ...NO_TOKEN, DATABASE_URL: 'sqlite::memory:' }, { cwd: memory });
      expect(server.stdout()).toContain('operator token (generated for this run: the database is in memory;');
      const token = bannerValue(server, OPERATOR_TOKEN) ?? '';
      expect(await listClinics(server, token)).toBe(200);
      expect(existsSync(path.join(memory, DEV_OPERATOR_TOKEN_FILE))).toBe(false);
    } finally {
      rmSync(memory, { recursive: true, force: true });
    }
  });
});

describe('the webhook worker warning', { timeout: 60_000 }, () => {
  it('when RUN_WORKER=false, then the banner warns that no webhooks go out without npm run worker', async () => {
    const server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:', RUN_WORKER: 'false' });
    expect(server.stdout()).toContain('WARNING: RUN_WORKER=false: this server delivers no webhooks.');
    expect(server.stdout()).toContain('npm run worker');
  });

  it('when the worker runs in the server, then there is no warning', async () => {
    const server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:' });
    expect(server.stdout()).not.toContain('WARNING');
  });
});

/** Resolves once the server has printed a line matching `pattern` (the line), failing after 10 s. */
async function printedLine(server: ServerProcess, pattern: RegExp): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const line = server
      .stdout()
      .split('\n')
      .find((candidate) => pattern.test(candidate));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no line matching ${String(pattern)} in:\n${server.stdout()}`);
}

describe('the log format', { timeout: 60_000 }, () => {
  it('when LOG_FORMAT=pretty, then each request is one readable line: method, route, status, duration, request id', async () => {
    const server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' });
    const res = await fetch(`${server.baseUrl}/healthz?name=Vantongeren`);
    const reqId = res.headers.get('x-request-id') ?? '';
    const line = await printedLine(server, new RegExp(`\\(req ${reqId}\\)`));
    expect(line).toMatch(
      new RegExp(`^\\[\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\] INFO: GET /healthz 200 in [\\d.]+ ms \\(req ${reqId}\\)$`),
    );
    expect(server.stdout().split(reqId).length - 1).toBe(1);
    expect(server.stdout()).not.toContain('Vantongeren');
  });

  it('when standard output is not a terminal and LOG_FORMAT is unset, then the lines are JSON', async () => {
    const server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'info' });
    const res = await fetch(`${server.baseUrl}/healthz`);
    const reqId = res.headers.get('x-request-id') ?? '';
    const line = await printedLine(server, new RegExp(reqId));
    expect(JSON.parse(line)).toMatchObject({ msg: 'request completed', reqId, statusCode: 200, req: { route: '/healthz' } });
    // Fastify's deprecated options are not used (its warnings go to stderr).
    expect(server.stderr()).not.toContain('FSTDEP');
  });
});
