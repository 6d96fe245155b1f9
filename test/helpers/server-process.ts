import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { runInBackground } from '../../src/background.js';
import { buildServer } from './server-build.js';
import { OPERATOR_TOKEN, TEST_DATA_ENCRYPTION_KEY } from './test-app.js';
import type { TestDatabase } from './test-db.js';

export { buildServer };

/**
 * The real server as child processes on real ports: what several instances behind a load balancer
 * are. Used by the suites that need more than one process (shared rate limits, idempotency across
 * instances, revocation, signals, TLS).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Variables of ours that the test runner's own environment must not leak into a child. */
const OWN_VARIABLES =
  /^(PORT|HOST|FULFILLMENT_ENV|DATABASE_URL|ADMIN_TOKEN|LOG_LEVEL|LOG_FORMAT|RATE_LIMIT_PER_MINUTE|TRUST_PROXY|RUN_WORKER|WEBHOOK_.*|SANDBOX_.*|REDIS_URL|TLS_.*|DATA_ENCRYPTION_.*|SHUTDOWN_.*|HEADERS_TIMEOUT_MS|REQUEST_TIMEOUT_MS|KEEP_ALIVE_TIMEOUT_MS|IDEMPOTENCY_LOCK_TIMEOUT_MS|CONSOLE_.*|REQUIRE_.*)$/;

/** DATABASE_URL for a child process on the test's database: PostgreSQL gets the test's schema. */
export function databaseUrlOf(database: TestDatabase): string {
  if (database.config.kind === 'sqlite') return database.config.filename;
  const url = new URL(database.config.url);
  if (database.schema) url.searchParams.set('options', `-c search_path=${database.schema}`);
  return url.toString();
}

/**
 * A production server on plain HTTP must be behind a TLS-terminating proxy it trusts (main.ts
 * refuses to start otherwise): here the "proxy" is the test itself, on 127.0.0.1. Spread it into
 * the environment of a production server process.
 */
export const PRODUCTION_BEHIND_PROXY = { FULFILLMENT_ENV: 'production', TRUST_PROXY: '127.0.0.1' } as const;

/**
 * What that proxy adds to every partner and operator request: the client reached it over HTTPS.
 * Without it a production server behind a proxy answers 403 (/healthz and /readyz need nothing).
 */
export const FORWARDED_HTTPS = { 'x-forwarded-proto': 'https' } as const;

export interface ServerProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>` (or https with TLS). */
  readonly baseUrl: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** The output of every child spawned since the last `printServerProcessesIfFailed` (for a failed test's report). */
const spawned: { pid: number | undefined; stdout: () => string; stderr: () => string; child: ChildProcess }[] = [];

/** How many of a child's last output lines a failed test prints. */
const PRINTED_LINES = 40;

/**
 * An `afterEach` (before `killServerProcesses`): when the test failed, timed out included, prints
 * the last lines each child it started wrote, and whether it was still running, so that a hang on
 * a loaded CI machine shows where the server stood. Forgets the children either way.
 */
export function printServerProcessesIfFailed(context: { task: { name: string; result?: { state?: string } } }): void {
  const children = spawned.splice(0);
  if (context.task.result?.state !== 'fail') return;
  const last = (text: string) => text.split('\n').slice(-PRINTED_LINES).join('\n');
  for (const child of children) {
    const { exitCode, signalCode } = child.child;
    const state =
      signalCode !== null ? `killed by ${signalCode}` : exitCode !== null ? `exited with ${exitCode}` : 'still running';
    console.error(
      [
        `--- server process ${String(child.pid)} of the failed test "${context.task.name}": ${state}`,
        `--- its last ${PRINTED_LINES} lines of stdout:`,
        last(child.stdout()),
        `--- its last ${PRINTED_LINES} lines of stderr:`,
        last(child.stderr()),
      ].join('\n'),
    );
  }
}

/**
 * The environment of a child: the runner's, without our own variables, plus `env`. Every child of
 * one test file shares one data key (as instances of one deployment do) and the tests' operator
 * token, so that none writes a development key or token file into the repository (a test of those
 * files passes `ADMIN_TOKEN: ''` and a `cwd` of its own).
 */
function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OWN_VARIABLES.test(name)));
  return { ...clean, DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY, ADMIN_TOKEN: OPERATOR_TOKEN, ...env };
}

/** Where a child runs: the repository by default; a folder of the test's for the development defaults (./data). */
export interface SpawnOptions {
  cwd?: string;
}

/** Spawns the built server without waiting for it (a start expected to fail, or one to watch). */
export async function spawnServerProcess(
  env: Record<string, string>,
  options: SpawnOptions = {},
): Promise<Omit<ServerProcess, 'baseUrl'>> {
  const main = await buildServer();
  const child = spawn(process.execPath, [main], {
    cwd: options.cwd ?? ROOT,
    env: childEnvironment({ LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  spawned.push({ pid: child.pid, stdout: () => out, stderr: () => err, child });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs the built operator command line (`npm run admin -- <args>`, as a deployment runs it) with
 * `input` on its standard input; resolves with its JSON output, or rejects with what it printed.
 */
export async function runAdminCli(args: string[], options: { env: Record<string, string>; input?: string }): Promise<any> {
  const cli = path.join(path.dirname(await buildServer()), 'cli', 'admin.js');
  const child = spawn(process.execPath, [cli, ...args], { cwd: ROOT, env: childEnvironment(options.env) });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  child.stdin.end(options.input ?? '');
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`admin ${args.join(' ')} exited with ${String(code)}:\n${out}\n${err}`);
  return JSON.parse(out);
}

const BANNER = /on (https?:\/\/[^\s]+:(\d+))/;

/**
 * Starts the built server and resolves once it has printed its banner, which it prints once it
 * listens (readiness is the test's to check: some start with Redis down on purpose); rejects with
 * its output if it exits first.
 */
export async function startServerProcess(env: Record<string, string>, options: SpawnOptions = {}): Promise<ServerProcess> {
  const server = await spawnServerProcess(env, options);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = BANNER.exec(server.stdout());
      if (match?.[1] && server.stdout().includes('API reference:')) {
        server.child.stdout?.off('data', check);
        resolve(match[1]);
      }
    };
    server.child.stdout?.on('data', check);
    check();
    runInBackground(
      server.exited.then((code) =>
        reject(new Error(`server exited with ${String(code)}:\n${server.stdout()}\n${server.stderr()}`)),
      ),
      reject,
    );
  });
  return { ...server, baseUrl };
}

/** The value a server printed on a banner line `  <label>: <value>` (`clinic_id`, `x-api-key`, …). */
export function bannerValue(server: Pick<ServerProcess, 'stdout'>, label: RegExp): string | undefined {
  return new RegExp(`^\\s*${label.source}: (\\S+)\\s*$`, 'm').exec(server.stdout())?.[1];
}

/**
 * The sandbox clinic and development API key a development server prints at its first start on an
 * empty database (the README's Quick start): what a partner developer puts in CLINIC and KEY.
 */
export function sandboxCredentials(server: Pick<ServerProcess, 'stdout'>): { clinicId: string; apiKey: string } {
  const clinicId = bannerValue(server, /clinic_id/);
  const apiKey = bannerValue(server, /x-api-key/);
  if (!clinicId || !apiKey) throw new Error(`no sandbox clinic_id and x-api-key in the banner:\n${server.stdout()}`);
  return { clinicId, apiKey };
}

/** Kills every child still running (afterEach / afterAll), so that no test leaves a server behind. */
export async function killServerProcesses(): Promise<void> {
  const children = [...running];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
