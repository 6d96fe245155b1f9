import type { IncomingMessage } from 'node:http';
import { systemClock, type Clock } from '../clock.js';
import { newIdAt } from '../shared/ids.js';

/**
 * Every request's id is the server's own (a UUID), whatever the client sends: the id names one
 * request in the logs and the audit trail, so a client must not be able to give two requests one id
 * (issue 21, item 6). It is answered as X-Request-Id and as `error.request_id`.
 *
 * Time-ordered (UUIDv7 of the moment the request arrived), as row ids are: the request log and the
 * audit trail index rows by request id, and a random key lands each insert on a random page of that
 * index. On SQLite the request log's random-keyed index cost about a third of `GET carriers`'
 * throughput (docs/performance.md); time-ordered keys append to its last pages.
 *
 * The request log is keyed by it (migration 020) and purged by its time, so it is made by the
 * service's clock (the system clock, or a test's), as the log's `occurred_at` is. Unique: 74 random
 * bits (`crypto.randomUUID`'s) within each millisecond, whatever the number of instances.
 */
export function requestIdGenerator(clock: Clock): () => string {
  // The system clock's time without a Date per request.
  if (clock === systemClock) return () => newIdAt(Date.now());
  return () => newIdAt(clock().getTime());
}

/** The longest client X-Request-Id kept. */
export const CLIENT_REQUEST_ID_MAX_LENGTH = 128;
/** Printable ASCII (space to tilde): nothing that could forge a log line or hide in a terminal. */
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * The X-Request-Id the client sent, kept beside the server's id (`client_request_id` in the audit
 * trail and the request's log line) so that a partner's own correlation id still finds the request:
 * trimmed, 1 to 128 printable ASCII characters; anything else (longer, control characters, non-ASCII,
 * sent twice) is dropped rather than rewritten, since an altered id would correlate with nothing.
 */
export function clientRequestIdOf(request: { headers: IncomingMessage['headers'] }): string | null {
  const sent = request.headers['x-request-id'];
  if (typeof sent !== 'string') return null;
  const id = sent.trim();
  if (id.length === 0 || id.length > CLIENT_REQUEST_ID_MAX_LENGTH || !PRINTABLE_ASCII.test(id)) return null;
  return id;
}
