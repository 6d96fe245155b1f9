import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { emptyDatabaseTally, probeDatabases, type DatabaseTally } from './database-probe.js';
import {
  captureRouteContexts,
  countHooks,
  countLogBytes,
  countPromises,
  registeredHooks,
  type LifecycleHook,
  type RouteContext,
} from './pipeline-probe.js';
import type { TestApp } from './test-app.js';

/**
 * What one request costs the server, counted rather than timed (issue 19, item 3), so that a test
 * can hold a route to it: `expect((await measureRequestCosts(t, request)).queries).toBeLessThanOrEqual(3)`.
 *
 * The requests travel over real HTTP from a child process (request-load.mjs), one after the other
 * on one keep-alive connection, so that the client's own promises and sockets are not counted. After
 * a warm-up (statement caches, pool connections, JIT), two windows are counted: an empty one, whose
 * counts (the IPC round trip, the settle step, any timer that fired) are the baseline, then one of
 * `requests` requests; each figure is (window − baseline) / requests. The settle step (by default a
 * flush of the audit buffer) runs inside each window, so work a request leaves for later is counted
 * with it.
 *
 * Blind spots: work the server does on its own clock (the audit buffer's flush timer) is counted in
 * whichever window it falls, so such figures are averages over the window, not exact; the requests
 * go one at a time, so what depends on concurrency (batch sizes, pool waits) is that of one client;
 * the BEGIN and COMMIT of better-sqlite3's native `transaction()` helper are not seen (src/ does
 * not use it today); `queries` counts statements, not round trips (a pg pipeline would send several
 * in one); bytes logged are those written to the app logger's destination (in a TestApp the
 * runtime's logger writes to the same stream and is counted too), as JSON before any pretty-printing.
 * The hook count relies on Fastify internals (pipeline-probe.ts) and throws if they change.
 */

export interface CostRequest {
  method: string;
  /** Path and query string. `{{seq}}` here, in a header value or in the body becomes a token unique to each request. */
  url: string;
  /** Sent as JSON (a string is sent as it is). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface MeasureOptions {
  /** Requests in the counted window (default 50). */
  requests?: number;
  /** Requests sent first and not counted (default 10); the route's hooks are found on them, so with none no hook is counted. */
  warmup?: number;
  /** The status every answer must have, or the measurement throws with the first other answer (default 200). */
  expectStatus?: number;
  /** Run at the end of each window before the counters stop (default: flush the audit buffer). */
  settle?: () => Promise<void>;
}

/** Per request, averaged over the window. */
export interface RequestCosts {
  requests: number;
  /** Statements the database executed, BEGIN and COMMIT included. */
  queries: number;
  /** Statements parsed and planned: better-sqlite3 prepares (its cache misses); pg unnamed queries and first uses of a named one. */
  prepared: number;
  /** pg: queries sent with a statement name. */
  named: number;
  /** Kysely queries compiled from their syntax tree to SQL. */
  compiled: number;
  /** Transactions begun. */
  transactions: number;
  rollbacks: number;
  /** pg connections opened. */
  connections: number;
  redisCommands: number;
  /** Promises created in the server's process. */
  promises: number;
  /** Fastify lifecycle hooks run, in all and by hook. */
  hooks: number;
  hooksByName: Partial<Record<LifecycleHook, number>>;
  /** The route's registered hooks by name (static: what a request that goes the whole way runs). */
  hooksRegistered: Partial<Record<LifecycleHook, number>>;
  bytesLogged: number;
  linesLogged: number;
  /** Each statement's text and how often one request executes it, in the order first seen. */
  statements: { sql: string; perRequest: number }[];
  /** What the empty window counted (in all, not per request), subtracted from the figures above. */
  baseline: { queries: number; promises: number; hooks: number; bytesLogged: number };
}

interface WindowTally {
  db: DatabaseTally;
  promises: number;
  hooks: Partial<Record<LifecycleHook, number>>;
  bytesLogged: number;
  linesLogged: number;
}

interface LoadAnswer {
  statuses: Record<string, number>;
  failure?: string;
}

const LOAD_SCRIPT = new URL('./request-load.mjs', import.meta.url);

/** Sends `request` through `t`'s server (listening on a loopback port if it was not) and counts what it costs. */
export async function measureRequestCosts(t: TestApp, request: CostRequest, options: MeasureOptions = {}): Promise<RequestCosts> {
  const requests = options.requests ?? 50;
  const settle = options.settle ?? (() => t.ctx.audit.flush());
  const load = await startLoad(t, request, options.expectStatus ?? 200);
  try {
    const capture = captureRouteContexts(t.app);
    try {
      await sendRequests(load, options.warmup ?? 10);
      await settle();
    } finally {
      capture.stop();
    }
    const empty = await countWindow(t, load, 0, capture.contexts, settle);
    const full = await countWindow(t, load, requests, capture.contexts, settle);
    return perRequest(full, empty, requests, registeredHooks(capture.contexts));
  } finally {
    load.disconnect();
    if (load.exitCode === null && load.signalCode === null) await once(load, 'exit');
  }
}

async function startLoad(t: TestApp, request: CostRequest, expectStatus: number): Promise<ChildProcess> {
  if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  const body = request.body === undefined || typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const headers = {
    accept: 'application/json',
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...request.headers,
  };
  // Without execArgv the child would inherit the test runner's loaders.
  const load = fork(LOAD_SCRIPT, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  load.send({
    origin: `http://127.0.0.1:${port}`,
    method: request.method,
    path: request.url,
    headers,
    body,
    expectStatus,
    runId: randomBytes(6).toString('hex'),
  });
  return load;
}

/** Has the child send `count` requests; throws with the first answer of another status. */
async function sendRequests(load: ChildProcess, count: number): Promise<void> {
  const answer = await new Promise<LoadAnswer>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`the load process exited (${String(code)}) before answering`));
    load.once('exit', exited);
    load.once('message', (message) => {
      load.off('exit', exited);
      resolve(message as LoadAnswer);
    });
    load.send({ count });
  });
  if (answer.failure !== undefined) {
    throw new Error(
      `measureRequestCosts: an answer was not the expected status (${JSON.stringify(answer.statuses)}): ${answer.failure}`,
    );
  }
}

async function countWindow(
  t: TestApp,
  load: ChildProcess,
  count: number,
  contexts: Iterable<RouteContext>,
  settle: () => Promise<void>,
): Promise<WindowTally> {
  const tally: WindowTally = { db: emptyDatabaseTally(), promises: 0, hooks: {}, bytesLogged: 0, linesLogged: 0 };
  // The promise counter last on and first off, so that starting and stopping the others is not counted.
  const stops = [probeDatabases(tally.db), countHooks(contexts, tally.hooks), countLogBytes(t.app, tally), countPromises(tally)];
  try {
    await sendRequests(load, count);
    await settle();
  } finally {
    for (const stop of stops.reverse()) stop();
  }
  return tally;
}

function perRequest(
  full: WindowTally,
  empty: WindowTally,
  requests: number,
  hooksRegistered: Partial<Record<LifecycleHook, number>>,
): RequestCosts {
  const per = (a: number, b: number) => Math.max(0, a - b) / requests;
  const hooksByName: Partial<Record<LifecycleHook, number>> = {};
  for (const [name, count] of Object.entries(full.hooks) as [LifecycleHook, number][]) {
    hooksByName[name] = per(count, empty.hooks[name] ?? 0);
  }
  const statements = [...full.db.sql].map(([sql, count]) => ({ sql, perRequest: per(count, empty.db.sql.get(sql) ?? 0) }));
  return {
    requests,
    queries: per(full.db.queries, empty.db.queries),
    prepared: per(full.db.prepared, empty.db.prepared),
    named: per(full.db.named, empty.db.named),
    compiled: per(full.db.compiled, empty.db.compiled),
    transactions: per(full.db.begins, empty.db.begins),
    rollbacks: per(full.db.rollbacks, empty.db.rollbacks),
    connections: per(full.db.connections, empty.db.connections),
    redisCommands: per(full.db.redisCommands, empty.db.redisCommands),
    promises: per(full.promises, empty.promises),
    hooks: Object.values(hooksByName).reduce((sum, count) => sum + count, 0),
    hooksByName,
    hooksRegistered,
    bytesLogged: per(full.bytesLogged, empty.bytesLogged),
    linesLogged: per(full.linesLogged, empty.linesLogged),
    statements: statements.filter((statement) => statement.perRequest > 0),
    baseline: {
      queries: empty.db.queries,
      promises: empty.promises,
      hooks: Object.values(empty.hooks).reduce((sum, count) => sum + count, 0),
      bytesLogged: empty.bytesLogged,
    },
  };
}
