// The servers under test, each a child process on 127.0.0.1 pinned to the server core: the project
// (node dist/main.js with the flags `npm start` gives it), its webhook workers (node dist/worker.js,
// as `npm run worker` runs it) where a scenario runs them apart, and the ceilings (ceilings/*.js).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { LOAD_CPU, SERVER_CPU, startNode } from './processes.js';

const CEILINGS = path.join(import.meta.dirname, 'ceilings');

/**
 * The node flags of package.json's `script` (`start`, `worker`): the V8 heap's bounds, chosen for the
 * server's memory (docs/performance.md, "Memory"). Read from there, so that the benchmark runs the
 * server exactly as `npm start` and `npm run worker` do.
 */
function nodeFlagsOf(script) {
  const packageJson = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'));
  return [...packageJson.scripts[script].split(/\s+/).filter((word) => word.startsWith('--')), ...extraNodeFlags()];
}

/**
 * BENCH_SERVER_NODE_FLAGS: more Node flags for every server of the run (the project's processes and
 * the ceilings), e.g. a profile of each (`--cpu-prof --cpu-prof-dir=prof`, written as it ends;
 * docs/performance.md).
 */
const extraNodeFlags = () => (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

/** Our own variables are set here, never inherited from the shell that runs the benchmark. */
const PROJECT_VARIABLES =
  /^(PORT|HOST|FULFILLMENT_ENV|DATABASE_URL|ADMIN_TOKEN|LOG_LEVEL|LOG_FORMAT|RATE_LIMIT_PER_MINUTE|TRUST_PROXY|RUN_WORKER|WEBHOOK_.*|SANDBOX_.*|REDIS_URL|TLS_.*|DATA_ENCRYPTION_.*|SHUTDOWN_.*|HEADERS_TIMEOUT_MS|REQUEST_TIMEOUT_MS|KEEP_ALIVE_TIMEOUT_MS|IDEMPOTENCY_LOCK_TIMEOUT_MS|CONSOLE_.*)$/;

const cleanEnvironment = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !PROJECT_VARIABLES.test(name)));

/** The operator token every project server of the run gets. */
export const OPERATOR_TOKEN = randomBytes(24).toString('base64url');

/**
 * The environment of a project process (server or webhook worker) on `databaseUrl` (a SQLite file or
 * a PostgreSQL URL), with Redis when `redisUrl` is given, and `extra` variables on top (RUN_WORKER,
 * WEBHOOK_RETRY_SCHEDULE). Development mode (no TLS proxy needed), JSON logs at the default level
 * (they are part of the real cost), a rate limit no run reaches, private webhook targets allowed
 * (the receiver is on 127.0.0.1), and a data encryption key of its own: every process sharing one
 * database must get the same environment (the workers read the secrets the server encrypted).
 */
export function projectEnvironment({ databaseUrl, redisUrl, extra = {} }) {
  return {
    ...cleanEnvironment(),
    FULFILLMENT_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    LOG_FORMAT: 'json',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ADMIN_TOKEN: OPERATOR_TOKEN,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...extra,
  };
}

/**
 * The project server (`node dist/main.js`, as `npm start` runs it) with `env` (projectEnvironment),
 * its logs into `logFile`. Runs in `workDir`, so that nothing lands in ./data.
 */
export function startProjectServer({ main, name, env, workDir, logFile }) {
  return startNode({
    name,
    cwd: workDir,
    args: [...nodeFlagsOf('start'), path.resolve(main)],
    env,
    cpu: SERVER_CPU,
    logFile,
    ready: /API reference: https?:\/\/[^\s]+:(\d+)\/docs/,
  });
}

/**
 * A webhook worker process (`node dist/worker.js`, as `npm run worker` runs it, next to `main`) with
 * the server's `env`: it has no port, and is ready once it has logged that it started. Workers run
 * apart to scale out, onto other cores than the API's: on this 2-core machine they get the other
 * core, which they share with the load generator and the receiver (the server keeps its own).
 */
export function startWorker({ main, name, env, workDir, logFile }) {
  return startNode({
    name,
    cwd: workDir,
    args: [...nodeFlagsOf('worker'), path.join(path.dirname(path.resolve(main)), 'worker.js')],
    env,
    cpu: LOAD_CPU,
    logFile,
    ready: /"msg":"webhook worker started"/,
  });
}

/** A ceiling from ceilings/<script>.js with `env`; `dist` is the compiled server's folder (its schemas: ceilings/project-modules.js). */
export function startCeiling({ name, script, env, dist, logFile }) {
  return startNode({
    name,
    args: [...extraNodeFlags(), path.join(CEILINGS, `${script}.js`)],
    env: { ...cleanEnvironment(), PORT: '0', BENCH_DIST: dist, ...env },
    cpu: SERVER_CPU,
    logFile,
    ready: /listening on (\d+)/,
  });
}
