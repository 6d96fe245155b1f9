import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { TEST_DATA_ENCRYPTION_KEY } from '../helpers/test-app.js';
import { freshProcessDatabase, inDatabase } from '../helpers/process-database.js';
import { DIALECTS } from '../helpers/test-db.js';
import {
  buildServer,
  killServerProcesses,
  printServerProcessesIfFailed,
  startServerProcess,
  type ServerProcess,
} from '../helpers/server-process.js';
import { Gate, WebhookReceiver } from '../helpers/webhook-receiver.js';
import { StatementHoldProxy } from '../helpers/statement-hold-proxy.js';
import { runInBackground } from '../../src/background.js';
import { openRawConnection, parseRawResponse, within } from '../helpers/raw-connection.js';

/**
 * Graceful shutdown (issue 8, item 11), for real: the built server as a child process, SIGTERM while
 * requests and webhook attempts are in flight. Development servers (plain HTTP, a seeded sandbox
 * clinic): the shutdown does not depend on the environment.
 */
const ORDER = '/api/external/medication-order';

afterEach(killServerProcesses);
// After hooks run last registered first: printed before the children are killed.
afterEach(printServerProcessesIfFailed);

/**
 * The JSON log lines the server printed so far (LOG_LEVEL=info or debug): complete lines only (a
 * chunk of its output may end inside a line, the rest of which is on its way).
 */
function logLines(server: Pick<ServerProcess, 'stdout'>): { msg?: string; [key: string]: unknown }[] {
  const output = server.stdout();
  return output
    .slice(0, output.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string });
}

/**
 * Resolves once the server has logged a line that `matches` (event-driven: on its output); rejects
 * with its output if it exits without having logged one (a process killed outright logs nothing).
 */
function logged(
  server: Pick<ServerProcess, 'stdout' | 'stderr' | 'child'>,
  matches: (line: { msg?: string; [key: string]: unknown }) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const check = () => {
      if (done || !logLines(server).some(matches)) return;
      done = true;
      server.child.stdout?.off('data', check);
      resolve();
    };
    server.child.stdout?.on('data', check);
    check();
    // Once the process has exited and its output ended (after its last chunk), the line is there or never will be.
    const { child } = server;
    const stdout = child.stdout;
    const ended = Promise.all([
      stdout === null || stdout.closed ? undefined : new Promise((closed) => stdout.once('close', closed)),
      child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((exited) => child.once('exit', exited)),
    ]);
    runInBackground(
      ended.then(() => {
        check();
        if (done) return;
        done = true;
        const { exitCode, signalCode } = child;
        reject(
          new Error(
            `the server exited (${signalCode ?? `code ${String(exitCode)}`}) without the log line awaited:\n${server.stdout()}\n${server.stderr()}`,
          ),
        );
      }),
      reject,
    );
  });
}

interface Sandbox {
  headers: Record<string, string>;
  orderBody: string;
}

/** The seeded sandbox clinic's key, a practitioner and a patient: what an order needs. */
async function sandboxOf(server: ServerProcess): Promise<Sandbox> {
  const printed = (label: string) => new RegExp(`^\\s*${label}: (\\S+)\\s*$`, 'm').exec(server.stdout())?.[1] ?? '';
  const clinicId = printed('clinic_id');
  const headers = { 'x-api-key': printed('x-api-key'), accept: 'application/json', 'content-type': 'application/json' };
  const create = async (url: string, body: unknown) => {
    const response = await fetch(`${server.baseUrl}${url}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await response.json()) as { data: Record<string, string> };
    if (response.status !== 200) throw new Error(`${url} failed with ${response.status}: ${JSON.stringify(json)}`);
    return json.data;
  };
  const practitionerId = (await create('/api/external/practitioner', practitionerBody(clinicId))).practitioner_id;
  const patientId = (await create('/api/external/patient', patientBody(clinicId, { practitioner_id: practitionerId })))
    .patient_id;
  const orderBody = JSON.stringify({
    patient_id: patientId,
    practitioner_id: practitionerId,
    clinic_id: clinicId,
    carrier_id: 'fedex',
    service_id: 'fedex_ground',
    medication_requests: [
      { medication: 'Semaglutide', dose: '0.25mg', quantity: 1, refills: '0', direction: 'Inject weekly', days_supply: 28 },
    ],
  });
  return { headers, orderBody };
}

/**
 * An order request whose body is held back: the server has it in flight (its headers arrived)
 * until `finish()` sends the rest. Resolves `answer` with the status and body, or rejects when the
 * connection is cut.
 */
function heldOrder(server: ServerProcess, sandbox: Sandbox) {
  const body = Buffer.from(sandbox.orderBody);
  const req = http.request(`${server.baseUrl}${ORDER}`, {
    method: 'POST',
    headers: { ...sandbox.headers, 'content-length': String(body.length) },
    agent: false,
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, 10));
  return { answer, finish: () => req.end(body.subarray(10)) };
}

/** Resolves once the server refuses new connections: its close has begun (after its preClose hooks). */
async function stoppedListening(server: ServerProcess): Promise<void> {
  for (;;) {
    try {
      const probe = await openRawConnection(server.baseUrl);
      probe.socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 10));
    } catch {
      return;
    }
  }
}

/**
 * An order request has arrived (its headers were read): the `debug` line of its arrival, since at
 * `info` a request is logged once, when answered (src/http/request-log.ts). The log names a request
 * by its route pattern, never its URL (src/http/logging.ts).
 */
const isOrderRequest = (line: { msg?: string; req?: unknown }) =>
  line.msg === 'incoming request' && (line.req as { route?: string } | undefined)?.route === ORDER;

describe.each(DIALECTS)('graceful shutdown on %s', { timeout: 120_000 }, (dialect) => {
  it('when SIGTERM arrives during a burst of order creations, then every acknowledged order exists and the exit code is 0', async () => {
    const database = await freshProcessDatabase(dialect, 'burst');
    try {
      const server = await startServerProcess({ ...database.env, RATE_LIMIT_PER_MINUTE: '100000' });
      const sandbox = await sandboxOf(server);
      const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000 });
      type Outcome = { ok: string } | { status: number; body: any } | { error: string };
      let answered = 0;
      let signalled = false;
      const send = async (): Promise<Outcome> => {
        try {
          const response = await request(`${server.baseUrl}${ORDER}`, {
            method: 'POST',
            headers: sandbox.headers,
            body: sandbox.orderBody,
            dispatcher: agent,
          });
          const body = (await response.body.json()) as any;
          if (response.statusCode !== 200) return { status: response.statusCode, body };
          // After the first few answers, while the rest are in flight: the signal.
          if (++answered === 5 && !signalled) {
            signalled = true;
            server.child.kill('SIGTERM');
          }
          return { ok: body.data.medication_request_id as string };
        } catch (error) {
          return { error: (error as NodeJS.ErrnoException).code ?? String(error) };
        }
      };
      const outcomes = await Promise.all(Array.from({ length: 150 }, send));
      // The agent still holds its idle keep-alive connections: the server must not wait for them.
      expect(await server.exited).toBe(0);
      await agent.close();
      const acknowledged = outcomes.flatMap((o) => ('ok' in o ? [o.ok] : []));
      expect(acknowledged.length).toBeGreaterThanOrEqual(5);
      // Refused during the shutdown: a connection error or our 503, never anything else.
      for (const outcome of outcomes) {
        if ('status' in outcome) {
          expect(outcome.status).toBe(503);
          expect(outcome.body.error.code).toBe('SERVICE_UNAVAILABLE');
        }
      }
      const stored = await inDatabase(database, (db) =>
        db.selectFrom('medication_requests').select('id').where('id', 'in', acknowledged).execute(),
      );
      expect(stored.map((row) => row.id).sort()).toEqual([...acknowledged].sort());
      // And the converse: no request was executed without its answer reaching the client.
      const all = await inDatabase(database, (db) => db.selectFrom('medication_requests').select('id').execute());
      expect(all).toHaveLength(acknowledged.length);
    } finally {
      await database.drop();
    }
  });

  it('when SIGTERM arrives while a request is in flight, then it finishes, its order is stored and the exit code is 0', async () => {
    const database = await freshProcessDatabase(dialect, 'in-flight');
    try {
      const server = await startServerProcess({ ...database.env, LOG_LEVEL: 'debug' });
      const sandbox = await sandboxOf(server);
      const held = heldOrder(server, sandbox);
      await logged(server, isOrderRequest);

      server.child.kill('SIGTERM');
      await logged(server, (line) => line.msg === 'shutting down');
      held.finish();
      const answer = await held.answer;

      expect(answer.status).toBe(200);
      expect(await server.exited).toBe(0);
      const id = answer.body.data.medication_request_id as string;
      const stored = await inDatabase(database, (db) =>
        db.selectFrom('medication_requests').select('id').where('id', '=', id).execute(),
      );
      expect(stored).toHaveLength(1);
    } finally {
      await database.drop();
    }
  });

  it('when a request is still in flight after SHUTDOWN_TIMEOUT_MS, then it is cut off, logged, and the exit code is 1', async () => {
    const database = await freshProcessDatabase(dialect, 'timeout');
    try {
      const server = await startServerProcess({ ...database.env, LOG_LEVEL: 'debug', SHUTDOWN_TIMEOUT_MS: '300' });
      const sandbox = await sandboxOf(server);
      const held = heldOrder(server, sandbox);
      await logged(server, isOrderRequest);

      server.child.kill('SIGTERM');
      await expect(held.answer).rejects.toThrow();
      expect(await server.exited).toBe(1);
      expect(logLines(server)).toContainEqual(
        expect.objectContaining({ msg: expect.stringMatching(/^shutdown timed out/), requestsCutOff: 1 }),
      );
    } finally {
      await database.drop();
    }
  });

  it('when SIGTERM arrives with an idle keep-alive connection, a request in flight, a request begun and a client that never finishes, then each gets what it can and the process exits within SHUTDOWN_TIMEOUT_MS', async () => {
    const database = await freshProcessDatabase(dialect, 'walk');
    try {
      // The slow client's headers timeout (10 s) is past the shutdown's: only the shutdown cuts it off.
      const server = await startServerProcess({ ...database.env, LOG_LEVEL: 'debug', SHUTDOWN_TIMEOUT_MS: '2000' });
      const sandbox = await sandboxOf(server);
      // Idle: one answer, then kept open by the server (keep-alive).
      const idle = await openRawConnection(server.baseUrl);
      await idle.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await idle.waitFor(/\r\n\r\n\{.*\}$/s);
      // Begun before the signal, completed after: the request arrives during the shutdown.
      const late = await openRawConnection(server.baseUrl);
      await late.write('GET /api/external/carriers HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: late-request-1\r\n');
      // Never finishes its headers.
      const slow = await openRawConnection(server.baseUrl);
      await slow.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
      // In flight: its headers arrived (logged), its body is held back. Logged after the two partial
      // requests above were sent, so the server has read them by then.
      const held = heldOrder(server, sandbox);
      await logged(server, isOrderRequest);

      server.child.kill('SIGTERM');
      await logged(server, (line) => line.msg === 'shutting down');
      await stoppedListening(server);

      // Closed at once: before the shutdown timed out (the keep-alive timeout, 5 s, is longer).
      await idle.closed;
      expect(logLines(server).some((line) => line.msg?.startsWith('shutdown timed out'))).toBe(false);

      await late.write('\r\n');
      const refused = parseRawResponse(await late.closed);
      expect(refused.status).toBe(503);
      expect(refused.headers.connection).toBe('close');
      // The server's own request id (a client's X-Request-Id is kept beside it, never answered as it).
      const requestId = refused.headers['x-request-id'];
      expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(refused.body).toEqual({
        success: false,
        error: { message: expect.stringContaining('shutting down'), code: 'SERVICE_UNAVAILABLE', request_id: requestId },
      });

      held.finish();
      expect((await held.answer).status).toBe(200);

      // The slow client holds the close until the timeout; then it is cut off and the process exits
      // (status 1: not everything finished), within the timeout plus the stores' few seconds.
      expect(await within(server.exited, 2000 + 10_000, 'the exit')).toBe(1);
      expect(await slow.closed).toBe('');
      expect(logLines(server)).toContainEqual(
        expect.objectContaining({ msg: expect.stringMatching(/^shutdown timed out/), requestsCutOff: 0 }),
      );
    } finally {
      await database.drop();
    }
  });

  it('when SIGTERM arrives while a webhook attempt is in flight, then the attempt finishes and is recorded before the exit', async () => {
    const database = await freshProcessDatabase(dialect, 'webhook');
    const gate = new Gate();
    const receiver = await WebhookReceiver.start([{ status: 200, heldBy: gate }]);
    try {
      const server = await startServerProcess({ ...database.env, LOG_LEVEL: 'info' });
      const sandbox = await sandboxOf(server);
      const clinicId = (JSON.parse(sandbox.orderBody) as { clinic_id: string }).clinic_id;
      const registered = await fetch(`${server.baseUrl}/api/external/webhook`, {
        method: 'POST',
        headers: sandbox.headers,
        body: JSON.stringify({ clinic_id: clinicId, webhook_url: receiver.url() }),
      });
      expect(registered.status).toBe(200);
      const order = await fetch(`${server.baseUrl}${ORDER}`, {
        method: 'POST',
        headers: sandbox.headers,
        body: sandbox.orderBody,
      });
      expect(order.status).toBe(200);
      await receiver.waitFor(1);

      server.child.kill('SIGTERM');
      await logged(server, (line) => line.msg === 'shutting down');
      gate.release();

      expect(await server.exited).toBe(0);
      const deliveries = await inDatabase(database, (db) =>
        db.selectFrom('webhook_deliveries').select(['status', 'attempt_count']).execute(),
      );
      expect(deliveries).toEqual([{ status: 'delivered', attempt_count: 1 }]);
    } finally {
      await receiver.stop();
      await database.drop();
    }
  });
});

describe('graceful shutdown during the start on postgres', { timeout: 120_000 }, () => {
  /**
   * The webhook worker takes work (an event committed in this process wakes it) before its start is
   * over: on PostgreSQL that start waits for the worker's LISTEN connection, slow on a loaded
   * machine. Held here by a proxy, not slept for: the attempt goes out while the start still waits.
   */
  it('when SIGTERM arrives while the webhook worker is still starting and its attempt is in flight, then the attempt finishes and is recorded before the exit', async () => {
    const database = await freshProcessDatabase('postgres', 'start');
    const gate = new Gate();
    const receiver = await WebhookReceiver.start([{ status: 200, heldBy: gate }]);
    const postgres = new URL(database.env.DATABASE_URL);
    const proxy = await StatementHoldProxy.start(
      { host: postgres.hostname, port: Number(postgres.port || 5432) },
      /listen "webhook_wakeup"/i,
    );
    try {
      const server = await startServerProcess({
        ...database.env,
        DATABASE_URL: proxy.url(database.env.DATABASE_URL),
        LOG_LEVEL: 'info',
      });
      const sandbox = await sandboxOf(server);
      const clinicId = (JSON.parse(sandbox.orderBody) as { clinic_id: string }).clinic_id;
      const registered = await fetch(`${server.baseUrl}/api/external/webhook`, {
        method: 'POST',
        headers: sandbox.headers,
        body: JSON.stringify({ clinic_id: clinicId, webhook_url: receiver.url() }),
      });
      expect(registered.status).toBe(200);
      await proxy.holding;
      const order = await fetch(`${server.baseUrl}${ORDER}`, {
        method: 'POST',
        headers: sandbox.headers,
        body: sandbox.orderBody,
      });
      expect(order.status).toBe(200);
      await receiver.waitFor(1);

      server.child.kill('SIGTERM');
      await logged(server, (line) => line.msg === 'shutting down');
      proxy.release();
      gate.release();

      expect(await server.exited).toBe(0);
      const deliveries = await inDatabase(database, (db) =>
        db.selectFrom('webhook_deliveries').select(['status', 'attempt_count']).execute(),
      );
      expect(deliveries).toEqual([{ status: 'delivered', attempt_count: 1 }]);
    } finally {
      await receiver.stop();
      await proxy.close();
      await database.drop();
    }
  });
});

describe('graceful shutdown of the standalone worker (npm run worker)', { timeout: 120_000 }, () => {
  it('when its webhook attempt is still in flight after SHUTDOWN_TIMEOUT_MS, then it is cut off, logged, and the exit code is 1', async () => {
    const database = await freshProcessDatabase('sqlite', 'worker');
    const receiver = await WebhookReceiver.start([{ hang: true }]);
    try {
      const server = await startServerProcess({ ...database.env, RUN_WORKER: 'false' });
      const sandbox = await sandboxOf(server);
      const clinicId = (JSON.parse(sandbox.orderBody) as { clinic_id: string }).clinic_id;
      await fetch(`${server.baseUrl}/api/external/webhook`, {
        method: 'POST',
        headers: sandbox.headers,
        body: JSON.stringify({ clinic_id: clinicId, webhook_url: receiver.url() }),
      });
      expect(
        (await fetch(`${server.baseUrl}${ORDER}`, { method: 'POST', headers: sandbox.headers, body: sandbox.orderBody })).status,
      ).toBe(200);

      const worker = await spawnWorker({ ...database.env, SHUTDOWN_TIMEOUT_MS: '300', WEBHOOK_TIMEOUT_MS: '60000' });
      try {
        await receiver.waitFor(1);
        worker.child.kill('SIGTERM');
        expect(await worker.exited).toBe(1);
        expect(logLines(worker)).toContainEqual(
          expect.objectContaining({ msg: expect.stringMatching(/shutdown timed out/), webhookAttemptsCutOff: 1 }),
        );
      } finally {
        if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
      }
    } finally {
      await receiver.stop();
      await database.drop();
    }
  });
});

/** The built worker (dist/worker.js of the shared build) as a child process. */
async function spawnWorker(env: Record<string, string>) {
  const main = await buildServer();
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(DATABASE_URL|FULFILLMENT_ENV|LOG_LEVEL|SHUTDOWN_.*|WEBHOOK_.*)$/.test(name),
    ),
  );
  const child = spawn(process.execPath, [path.join(path.dirname(main), 'worker.js')], {
    // The data key of the servers of this file (a worker on another key could not sign their webhooks).
    env: { ...clean, LOG_LEVEL: 'info', DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, exited };
}
