import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApp, type TestClinic } from '../helpers/test-app.js';

/**
 * Answers Node or Fastify would write themselves, outside our envelope, unless told otherwise
 * (issue 9, item 4; the list is in docs/errors.md "HTTP-level errors"). Over a real socket: most of
 * them never reach `inject`. The 408 of a slow client is in test/instances/timeouts.test.ts, the
 * 503 of a closing server in test/http/closing.test.ts and test/instances/shutdown.test.ts.
 */
describe('answers written before any route runs, over a real socket', () => {
  let t: TestApp;
  let clinic: TestClinic;
  let port: number;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    clinic = await t.createClinic();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.close());

  const bigBody = () => `{"notes":"${'a'.repeat(1024 * 1024)}"}`;

  it.each([
    ['a garbled request line', () => 'THIS IS NOT HTTP\r\n\r\n', 400, 'VALIDATION_ERROR'],
    ['a header line without a colon', () => 'GET /healthz HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n', 400, 'VALIDATION_ERROR'],
    [
      'both Content-Length and Transfer-Encoding',
      () => 'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      400,
      'VALIDATION_ERROR',
    ],
    [
      'a 20 KB header (over the 16 KiB limit)',
      () => `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'VALIDATION_ERROR',
    ],
  ])(
    'when a client sends %s, then it gets %i in the envelope with X-Request-Id, and the connection closes',
    async (_name, request, status, code) => {
      const response = parseRawResponse(await rawExchange(port, request()));
      expect(response.status).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers.connection).toBe('close');
      expect(response.body).toEqual({
        success: false,
        error: { message: expect.any(String), code, request_id: response.headers['x-request-id'] },
      });
    },
  );

  it('when an HTTP/1.1 request has no Host header, then it gets 400 naming Host in the envelope (not Node empty 400)', async () => {
    const response = parseRawResponse(await rawExchange(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: {
        message: expect.stringContaining('Host'),
        code: 'VALIDATION_ERROR',
        details: { Host: 'is required' },
        request_id: response.headers['x-request-id'],
      },
    });
  });

  it('when an HTTP/1.0 request has no Host header, then it is served (Host is an HTTP/1.1 rule)', async () => {
    const response = parseRawResponse(await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n'));
    expect(response.status).toBe(200);
  });

  it('when a request expects something other than 100-continue, then it gets 417 EXPECTATION_FAILED in the envelope (not Node empty 417)', async () => {
    const response = parseRawResponse(
      await rawExchange(
        port,
        'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nX-Request-Id: expect-test-1\r\nConnection: close\r\n\r\n',
      ),
    );
    expect(response.status).toBe(417);
    // The server's own id, not the client's (issue 21, item 6).
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(response.body).toEqual({
      success: false,
      error: {
        message: expect.stringContaining('100-continue'),
        code: 'EXPECTATION_FAILED',
        details: { Expect: expect.any(String) },
        request_id: response.headers['x-request-id'],
      },
    });
  });

  it('when a request expects 100-continue, then it is served as usual', async () => {
    const response = parseRawResponse(
      await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n'),
    );
    expect(response.status).toBe(200);
  });

  it('when a body over 1 MiB is sent, then it gets 413 PAYLOAD_TOO_LARGE in the envelope with X-Request-Id', async () => {
    const body = bigBody();
    const response = parseRawResponse(
      await rawExchange(
        port,
        `POST /api/external/practitioner HTTP/1.1\r\nHost: x\r\nx-api-key: ${clinic.apiKey}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      ),
    );
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      success: false,
      error: { message: expect.any(String), code: 'PAYLOAD_TOO_LARGE', request_id: response.headers['x-request-id'] },
    });
  });
});

/** Sends raw bytes and returns everything the server answers before the connection closes. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.end(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    // The server may close before it has read everything sent (a 413, a 431): what it answered counts.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
  });
}

/** The first response of a raw exchange (a 100 Continue before it is skipped). */
function parseRawResponse(raw: string): { status: number; headers: Record<string, string>; body: any } {
  const final = raw.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
  const split = final.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = final.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const body = final.slice(split + 4);
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.startsWith('{') ? JSON.parse(body) : body };
}
