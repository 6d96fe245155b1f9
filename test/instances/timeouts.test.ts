import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { openRawConnection, parseRawResponse, within, type RawConnection } from '../helpers/raw-connection.js';
import { expectRequestTimeoutAnswer, slowBodyClient, slowHeaderClient } from '../helpers/slow-clients.js';

/**
 * Slow clients are cut off (issue 9, item 3): HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and
 * KEEP_ALIVE_TIMEOUT_MS on the built server, over real sockets, with small timeouts. "On time" is
 * a generous upper bound (10 times the timeout), never a measure in milliseconds. Not about the
 * database: one in-memory SQLite development server (its seeded sandbox key) serves the file.
 */
const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1000;
const KEEP_ALIVE_TIMEOUT_MS = 500;

let server: ServerProcess;
let apiKey: string;

beforeAll(async () => {
  server = await startServerProcess({
    DATABASE_URL: 'sqlite::memory:',
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
  });
  apiKey = /^\s*x-api-key: (\S+)\s*$/m.exec(server.stdout())?.[1] ?? '';
}, 120_000);
afterAll(killServerProcesses);

/** GET /healthz on a connection of its own (closed after the answer): the status. */
function healthz(): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.baseUrl}/healthz`, { agent: false }, (response) => {
        response.resume().on('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

/** Normal requests, one after another on fresh connections, until `done` settles: their statuses. */
async function trafficUntil(done: Promise<unknown>): Promise<number[]> {
  const state = { finished: false };
  const settle = () => (state.finished = true);
  done.then(settle, settle);
  const statuses: number[] = [];
  while (!state.finished) statuses.push(await healthz());
  return statuses;
}

describe('slow clients on a real server', { timeout: 60_000 }, () => {
  it('when a client trickles its headers and never ends them, then it gets 408 and is cut off on time while other requests succeed', async () => {
    const slow = await slowHeaderClient(server.baseUrl, { path: '/healthz' });

    const cutOff = within(slow.cutOff, 10 * HEADERS_TIMEOUT_MS, 'the cut-off of the slow-header client');
    const statuses = await trafficUntil(cutOff);
    const { received } = await cutOff;

    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expectRequestTimeoutAnswer(received);
  });

  it('when a client trickles its body one byte at a time and never ends it, then it gets 408 and is cut off on time while other requests succeed', async () => {
    // 99 bytes at one per 200 ms would take 20 s (and the last never comes): the request timeout ends it.
    const slow = await slowBodyClient(server.baseUrl, { headers: { 'x-api-key': apiKey }, intervalMs: 200 });

    const cutOff = within(slow.cutOff, 10 * REQUEST_TIMEOUT_MS, 'the cut-off of the slow-body client');
    const statuses = await trafficUntil(cutOff);
    const { received } = await cutOff;

    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expectRequestTimeoutAnswer(received);
  });

  it('when a keep-alive connection stays idle after its answer, then the server closes it on time', async () => {
    const idle: RawConnection = await openRawConnection(server.baseUrl);
    await idle.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await idle.waitFor(/\r\n\r\n\{.*\}$/s);
    const answer = parseRawResponse(idle.received());
    expect(answer.status).toBe(200);
    // Kept open by the server after the answer...
    expect(answer.headers.connection).toBe('keep-alive');

    // ...until the keep-alive timeout, with nothing more sent or answered.
    const received = await within(idle.closed, 10 * KEEP_ALIVE_TIMEOUT_MS, 'the close of the idle keep-alive connection');
    expect(received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('when a request arrives in time on a keep-alive connection, then it is answered as usual', async () => {
    const connection = await openRawConnection(server.baseUrl);
    await connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await connection.waitFor(/\r\n\r\n\{.*\}$/s);
    await connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    const received = await connection.closed;
    expect(received.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
  });
});
