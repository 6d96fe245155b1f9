import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInBackground } from '../../src/background.js';
import { buildCompiledServer } from '../helpers/server-build.js';

/**
 * The README's quick start, for real: the built server as a child process on a real port, called
 * over HTTP with the key it prints.
 */
/**
 * `npm start` builds (`tsc -p tsconfig.json` and the console) then runs `node dist/main.js`. This
 * suite runs the suite's one build of the same sources (test/helpers/server-build.ts: inside
 * node_modules, so that packages resolve as from dist/), shared with every other file of the run:
 * tsc's output, as `npm start` runs it, where the other suites' child processes run its bundle.
 */
let serverMain = '';
const OPERATOR_TOKEN = 'startup-test-operator-token-0123456789';

/** Variables of ours that the test runner's own environment must not leak into the child. */
const OWN_VARIABLES =
  /^(PORT|HOST|FULFILLMENT_ENV|DATABASE_URL|ADMIN_TOKEN|LOG_LEVEL|LOG_FORMAT|RATE_LIMIT_PER_MINUTE|TRUST_PROXY|RUN_WORKER|WEBHOOK_.*|SANDBOX_.*|REDIS_URL|DATA_ENCRYPTION_KEY.*|TLS_.*|SHUTDOWN_.*)$/;
/** Given, so that the servers (started in the repository) never write the development key file there. */
const DATA_ENCRYPTION_KEY = randomBytes(32).toString('base64');

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  baseUrl: string;
}

const children: ChildProcess[] = [];

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OWN_VARIABLES.test(name)));
  return { ...clean, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '0', DATA_ENCRYPTION_KEY, ...env };
}

/**
 * Where the servers run: not the repository, since a development server without ADMIN_TOKEN keeps
 * its operator token in ./data (src/secrets/dev-operator-token.ts).
 */
const WORK_DIR = mkdtempSync(path.join(tmpdir(), 'fulfillment-cwd-'));

function spawnServer(env: Record<string, string>) {
  const child = spawn(process.execPath, [serverMain], { cwd: WORK_DIR, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Starts the server and waits until its banner is printed and /readyz answers. */
async function startServer(env: Record<string, string>): Promise<Started> {
  const server = spawnServer(env);
  // Within the tests' 60 s: a start on a loaded machine, beside the suite's other workers, can take 20.
  const deadline = Date.now() + 50_000;
  let exitCode: number | null | undefined;
  runInBackground(
    server.exited.then((code) => (exitCode = code)),
    (error) => console.error(error),
  );
  for (;;) {
    const match = /on (http:\/\/127\.0\.0\.1:(\d+))/.exec(server.stdout());
    if (match?.[1] && server.stdout().includes('API reference:')) {
      const baseUrl = match[1];
      const ready = await fetch(`${baseUrl}/readyz`).catch(() => null);
      if (ready?.status === 200) return { ...server, baseUrl };
    }
    if (exitCode !== undefined)
      throw new Error(`server exited with ${String(exitCode)}:\n${server.stdout()}\n${server.stderr()}`);
    if (Date.now() > deadline) throw new Error(`server did not start:\n${server.stdout()}\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopServer(server: Started): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  return exited;
}

function printed(stdout: string, label: string): string | undefined {
  return new RegExp(`^\\s*${label}: (\\S+)\\s*$`, 'm').exec(stdout)?.[1];
}

async function getJson(url: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The banner's label of a generated operator token kept in ./data (a regular expression). */
const OPERATOR_TOKEN_LABEL =
  'operator token \\(kept in data/admin-token, the same at every start; set ADMIN_TOKEN to choose one\\)';

const partnerHeaders = (key: string) => ({ 'x-api-key': key, accept: 'application/json', 'content-type': 'application/json' });

beforeAll(async () => {
  // `npm start` builds first (prestart); so does this suite.
  serverMain = await buildCompiledServer();
  expect(existsSync(serverMain)).toBe(true);
}, 180_000);

afterAll(() => {
  rmSync(WORK_DIR, { recursive: true, force: true });
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('npm start on SQLite', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfillment-start-'));
  const databaseFile = path.join(dir, 'data', 'fulfillment.sqlite');
  let firstKey = '';
  let firstClinic = '';
  let firstToken = '';
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when the server first starts on an empty database, then it prints a clinic id and a dev key that work over HTTP', async () => {
    const server = await startServer({ DATABASE_URL: databaseFile });
    const out = server.stdout();
    expect(out).toContain('(development)');
    expect(server.baseUrl).not.toMatch(/:0$/);
    expect(out).toContain(databaseFile);
    expect(existsSync(databaseFile)).toBe(true);
    firstToken = printed(out, OPERATOR_TOKEN_LABEL) ?? '';
    expect(firstToken).toMatch(/^\S{32,}$/);
    // The console, and how to get its first account on a database that has none.
    expect(out).toContain(`console: ${server.baseUrl}/console  (no staff account yet: npm run admin -- create-staff`);

    firstClinic = printed(out, 'clinic_id') ?? '';
    firstKey = printed(out, 'x-api-key') ?? '';
    expect(firstClinic).toMatch(/^[0-9a-f-]{36}$/);
    expect(firstKey).toMatch(/^dev_[A-Za-z0-9_-]{43}$/);

    const carriers = await getJson(`${server.baseUrl}/api/external/carriers`, partnerHeaders(firstKey));
    expect(carriers.status).toBe(200);
    expect(carriers.body.success).toBe(true);
    expect(carriers.body.data.carriers.length).toBeGreaterThan(0);

    const refused = await getJson(`${server.baseUrl}/api/external/carriers`, { accept: 'application/json' });
    expect(refused.status).toBe(401);

    expect(await stopServer(server)).toBe(0);
  });

  it('when the server starts again on the same file, then no new key is printed, the sandbox clinic and the operator token are the same, and the first key still works', async () => {
    expect(firstKey).not.toBe('');
    const server = await startServer({ DATABASE_URL: databaseFile });
    expect(server.stdout()).not.toContain('x-api-key:');
    expect(printed(server.stdout(), 'clinic_id')).toBe(firstClinic);
    expect(server.stdout()).toContain(`npm run admin -- issue-key --clinic ${firstClinic}`);
    expect(printed(server.stdout(), OPERATOR_TOKEN_LABEL)).toBe(firstToken);
    const carriers = await getJson(`${server.baseUrl}/api/external/carriers`, partnerHeaders(firstKey));
    expect(carriers.status).toBe(200);
    expect(await stopServer(server)).toBe(0);
  });

  it('when ADMIN_TOKEN is set, then it is not printed and the operator API accepts it', async () => {
    const server = await startServer({ DATABASE_URL: databaseFile, ADMIN_TOKEN: OPERATOR_TOKEN });
    expect(server.stdout()).not.toContain(OPERATOR_TOKEN);
    expect(server.stdout()).not.toContain('operator token');
    const created = await postJson(
      `${server.baseUrl}/api/admin/clinics`,
      { authorization: `Bearer ${OPERATOR_TOKEN}` },
      { name: 'Second Clinic' },
    );
    expect(created.status).toBe(200);
    expect(created.body.data.clinic_id).toMatch(/^[0-9a-f-]{36}$/);
    await stopServer(server);
  });
});

describe('npm start in production', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfillment-prod-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when ADMIN_TOKEN is missing, then the server exits non-zero naming ADMIN_TOKEN', async () => {
    const server = spawnServer({ FULFILLMENT_ENV: 'production', DATABASE_URL: path.join(dir, 'no-token.sqlite') });
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain('ADMIN_TOKEN');
    expect(existsSync(path.join(dir, 'no-token.sqlite'))).toBe(false);
  });

  it('when DATA_ENCRYPTION_KEY is missing, then the server exits non-zero naming it, before creating the database', async () => {
    const server = spawnServer({
      FULFILLMENT_ENV: 'production',
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATA_ENCRYPTION_KEY: '',
      DATABASE_URL: path.join(dir, 'no-key.sqlite'),
    });
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain('DATA_ENCRYPTION_KEY is required in production');
    expect(existsSync(path.join(dir, 'no-key.sqlite'))).toBe(false);
  });

  it('when several variables are wrong, then the server exits non-zero naming each', async () => {
    const server = spawnServer({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: path.join(dir, 'x.sqlite') });
    expect(await server.exited).not.toBe(0);
    expect(server.stderr()).toContain('PORT');
    expect(server.stderr()).toContain('LOG_LEVEL');
  });

  it('when production starts on a fresh database, then nothing is seeded but the default carriers exist', async () => {
    // Production serves HTTPS: here behind a "proxy" on this machine that terminated TLS.
    const server = await startServer({
      FULFILLMENT_ENV: 'production',
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATABASE_URL: path.join(dir, 'prod.sqlite'),
      TRUST_PROXY: '127.0.0.1',
    });
    expect(server.stdout()).toContain('(production)');
    expect(server.stdout()).not.toContain('x-api-key:');
    const viaProxy = { 'x-forwarded-proto': 'https' };
    const operator = { authorization: `Bearer ${OPERATOR_TOKEN}`, ...viaProxy };
    const clinic = await postJson(`${server.baseUrl}/api/admin/clinics`, operator, { name: 'First Partner' });
    const key = await postJson(`${server.baseUrl}/api/admin/clinics/${clinic.body.data.clinic_id}/api-keys`, operator, {});
    expect(key.body.data.api_key).toMatch(/^prod_/);
    const carriers = await getJson(`${server.baseUrl}/api/external/carriers`, {
      ...partnerHeaders(key.body.data.api_key),
      ...viaProxy,
    });
    expect(carriers.status).toBe(200);
    expect(carriers.body.data.carriers.length).toBeGreaterThan(0);
    await stopServer(server);
  });
});

describe.skipIf(!inject('postgresUrl'))('npm start on PostgreSQL', { timeout: 60_000 }, () => {
  const maintenanceUrl = inject('postgresUrl') ?? '';
  const database = `start_${randomBytes(6).toString('hex')}`;
  const run = async (text: string) => {
    const client = new pg.Client({ connectionString: maintenanceUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => run(`create database ${database}`));
  afterAll(async () => run(`drop database if exists ${database} with (force)`));

  it('when DATABASE_URL is a postgres:// URL, then the first start seeds a key that works, and the second does not', async () => {
    const url = new URL(maintenanceUrl);
    url.pathname = `/${database}`;
    const first = await startServer({ DATABASE_URL: url.toString() });
    expect(first.stdout()).toContain('database: PostgreSQL');
    const key = printed(first.stdout(), 'x-api-key') ?? '';
    expect(key).toMatch(/^dev_/);
    expect((await getJson(`${first.baseUrl}/api/external/carriers`, partnerHeaders(key))).status).toBe(200);
    expect(await stopServer(first)).toBe(0);

    const second = await startServer({ DATABASE_URL: url.toString() });
    expect(second.stdout()).not.toContain('x-api-key:');
    expect((await getJson(`${second.baseUrl}/api/external/carriers`, partnerHeaders(key))).status).toBe(200);
    expect(await stopServer(second)).toBe(0);
  });
});
