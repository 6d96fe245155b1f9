import { expect } from 'vitest';
import { openRawConnection, parseRawResponse, type RawConnection } from './raw-connection.js';

/**
 * Clients too slow on purpose, over raw sockets: what HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS must
 * cut off (issue 9, item 3), for the timeout tests and the fault suite.
 */

export interface CutOff {
  /** Everything the server sent before it closed the connection. */
  received: string;
  /** From the client's first byte (a silent client: its connection) to the close, in milliseconds. */
  afterMs: number;
}

export interface SlowClient {
  /** Resolves once the server has closed the connection. */
  readonly cutOff: Promise<CutOff>;
}

const TRICKLE_MS = 100;

/** Writes `first`, then `next()` every `intervalMs` until the server closes the connection (or `next` returns null). */
async function trickle(baseUrl: string, first: string, next: () => string | null, intervalMs: number): Promise<SlowClient> {
  const connection = await openRawConnection(baseUrl);
  const startedAt = performance.now();
  await connection.write(first);
  const timer = setInterval(() => {
    const more = next();
    if (more === null) clearInterval(timer);
    else if (!connection.socket.destroyed) connection.socket.write(more);
  }, intervalMs);
  return { cutOff: cutOffOf(connection, startedAt).finally(() => clearInterval(timer)) };
}

function cutOffOf(connection: RawConnection, startedAt: number): Promise<CutOff> {
  return connection.closed.then((received) => ({ received, afterMs: performance.now() - startedAt }));
}

/**
 * A client that sends its request line and then one header line every `intervalMs`, forever, never
 * the blank line that ends the headers (Slowloris): only HEADERS_TIMEOUT_MS ends it.
 */
export function slowHeaderClient(baseUrl: string, options: { path?: string; intervalMs?: number } = {}): Promise<SlowClient> {
  let line = 0;
  return trickle(
    baseUrl,
    `POST ${options.path ?? '/api/external/patient'} HTTP/1.1\r\nHost: localhost\r\n`,
    () => `X-Slow-${(line += 1)}: ${line}\r\n`,
    options.intervalMs ?? TRICKLE_MS,
  );
}

/**
 * A client that sends complete headers announcing a body of `length` bytes, then one byte of it every
 * `intervalMs`, and never the last one: only REQUEST_TIMEOUT_MS ends it. `headers` are raw header
 * lines (an API key, a forwarded protocol).
 */
export function slowBodyClient(
  baseUrl: string,
  options: { path?: string; headers?: Record<string, string>; length?: number; intervalMs?: number } = {},
): Promise<SlowClient> {
  const length = options.length ?? 100;
  const headers = Object.entries(options.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  let sent = 1;
  return trickle(
    baseUrl,
    `POST ${options.path ?? '/api/external/patient'} HTTP/1.1\r\nHost: localhost\r\n${headers}` +
      `content-type: application/json\r\ncontent-length: ${length}\r\n\r\n{`,
    () => (sent < length - 1 ? ((sent += 1), ' ') : null),
    options.intervalMs ?? TRICKLE_MS,
  );
}

/** A client that connects and sends nothing at all. */
export async function silentClient(baseUrl: string): Promise<SlowClient> {
  const connection = await openRawConnection(baseUrl);
  return { cutOff: cutOffOf(connection, performance.now()) };
}

/** The 408 a slow client gets where an answer can still be written: in the envelope, with its id. */
export function expectRequestTimeoutAnswer(received: string): void {
  const answer = parseRawResponse(received);
  expect(answer.status).toBe(408);
  expect(answer.headers.connection).toBe('close');
  expect(answer.body).toEqual({
    success: false,
    error: { message: expect.any(String), code: 'REQUEST_TIMEOUT', request_id: answer.headers['x-request-id'] },
  });
}
