import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRawConnection, parseRawResponse, within, type RawConnection } from '../helpers/raw-connection.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';

/**
 * A refused request always gets its answer (issue 28, item 5): an answer sent before the body has
 * all arrived is followed by a lingering close (src/http/lingering-close.ts), bounded in bytes and
 * time. Over a real socket: `inject` has none. 50 refusals on both databases, against server
 * processes, are in test/faults/refused-bodies.test.ts.
 */

/** Generous bounds on things that must happen (never a measure of how long they took). */
const CUT_OFF_WITHIN_MS = 10_000;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

const postHead = (path: string, headers: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n${headers}content-length: ${length}\r\n\r\n`;

/**
 * Writes `chunk` every `pauseMs` (0: as fast as the socket takes it) until the server cuts the
 * connection off (a write fails, or the connection closes); then waits for the close. The bytes written.
 */
async function sendUntilClosed(connection: RawConnection, chunk: Buffer, pauseMs: number): Promise<number> {
  const { socket } = connection;
  let written = 0;
  while (!socket.destroyed && socket.writable) {
    const failed = await new Promise<boolean>((resolve) => socket.write(chunk, (error) => resolve(error != null)));
    if (failed) break;
    written += chunk.length;
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  await connection.closed;
  return written;
}

describe('a body answered before it has all arrived, with a byte cap', () => {
  const MAX_BYTES = 512 * 1024;
  let t: TestApp;
  let clinic: TestClinic;
  let baseUrl: string;
  beforeAll(async () => {
    // No time cap to speak of, and no request timeout: only the byte cap can end the connection.
    t = await TestApp.start({
      dialect: 'sqlite',
      env: { HEADERS_TIMEOUT_MS: '600000', REQUEST_TIMEOUT_MS: '600000' },
      lingeringClose: { maxBytes: MAX_BYTES, maxMs: 600_000 },
    });
    clinic = await t.createClinic();
    baseUrl = await listening(t);
  });
  afterAll(async () => t.close());

  it('when a 5 MB body is posted with fetch 20 times, without retrying, then every answer is the 413 envelope', async () => {
    const body = JSON.stringify({ notes: 'a'.repeat(5 * 1024 * 1024) });
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${baseUrl}/api/external/practitioner`, {
        method: 'POST',
        headers: { 'x-api-key': clinic.apiKey, 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({
        success: false,
        error: { message: expect.any(String), code: 'PAYLOAD_TOO_LARGE', request_id: response.headers.get('x-request-id') },
      });
    }
  });

  it('when a client keeps sending a body without end past the cap, then it has its 413 and is cut off', async () => {
    const connection = await openRawConnection(baseUrl, { allowHalfOpen: true });
    await connection.write(postHead('/api/external/practitioner', `x-api-key: ${clinic.apiKey}\r\n`, 1024 ** 4));
    const written = await within(sendUntilClosed(connection, CHUNK, 0), CUT_OFF_WITHIN_MS, 'the cut-off');
    const answer = parseRawResponse(await connection.closed);
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(written).toBeGreaterThan(MAX_BYTES);
  });

  it('when a guard refuses a body on a keep-alive connection, then the rest of the body is read and the connection serves the next request', async () => {
    const connection = await openRawConnection(baseUrl);
    const body = `{"notes":"${'a'.repeat(200_000)}"}`;
    await connection.write(postHead('/api/external/practitioner', '', body.length) + body.slice(0, 1000));
    await connection.waitFor(/\r\n\r\n\{.*\}$/s);
    expect(parseRawResponse(connection.received()).status).toBe(401);
    await connection.write(body.slice(1000));
    await connection.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const all = await within(connection.closed, CUT_OFF_WITHIN_MS, 'the second answer');
    expect(all.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });
});

describe('a body answered before it has all arrived, with a time cap', () => {
  let t: TestApp;
  let clinic: TestClinic;
  let baseUrl: string;
  beforeAll(async () => {
    // No byte cap to speak of, and no request timeout: only the time cap can end the connection.
    t = await TestApp.start({
      dialect: 'sqlite',
      env: { HEADERS_TIMEOUT_MS: '600000', REQUEST_TIMEOUT_MS: '600000' },
      lingeringClose: { maxBytes: 1024 ** 4, maxMs: 300 },
    });
    clinic = await t.createClinic();
    baseUrl = await listening(t);
  });
  afterAll(async () => t.close());

  it('when a client trickles an oversized body after its 413, then it is cut off', async () => {
    const connection = await openRawConnection(baseUrl, { allowHalfOpen: true });
    await connection.write(postHead('/api/external/practitioner', `x-api-key: ${clinic.apiKey}\r\n`, 2 * 1024 * 1024));
    await connection.waitFor(/PAYLOAD_TOO_LARGE/);
    await within(sendUntilClosed(connection, Buffer.from('a'), 20), CUT_OFF_WITHIN_MS, 'the cut-off');
    expect(parseRawResponse(connection.received()).status).toBe(413);
  });

  it('when a refused request without a body gets its answer, then nothing lingers: the connection stays open for the next', async () => {
    const connection = await openRawConnection(baseUrl);
    await connection.write('GET /api/external/carriers HTTP/1.1\r\nHost: x\r\n\r\n');
    await connection.waitFor(/UNAUTHORIZED/);
    await connection.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const all = await within(connection.closed, CUT_OFF_WITHIN_MS, 'the second answer');
    expect(all.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });
});

describe('a body still discarded when the server closes', () => {
  it('when the server closes while a refused client keeps sending, then the client is cut off and the close completes', async () => {
    // Neither bound within reach: only the close can end the connection.
    const t = await TestApp.start({
      dialect: 'sqlite',
      env: { HEADERS_TIMEOUT_MS: '600000', REQUEST_TIMEOUT_MS: '600000' },
      lingeringClose: { maxBytes: 1024 ** 4, maxMs: 600_000 },
    });
    try {
      const clinic = await t.createClinic();
      const connection = await openRawConnection(await listening(t), { allowHalfOpen: true });
      await connection.write(postHead('/api/external/practitioner', `x-api-key: ${clinic.apiKey}\r\n`, 2 * 1024 * 1024));
      await connection.waitFor(/PAYLOAD_TOO_LARGE/);
      const sending = sendUntilClosed(connection, Buffer.from('a'), 20);
      await within(t.app.close(), CUT_OFF_WITHIN_MS, 'the close');
      await within(sending, CUT_OFF_WITHIN_MS, 'the cut-off');
    } finally {
      await t.close();
    }
  });
});
