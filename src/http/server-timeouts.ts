import type { ServerOptions } from 'node:http';
import type { HttpTimeouts } from '../config.js';

/**
 * Node's HTTP server settings for slow clients (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS,
 * KEEP_ALIVE_TIMEOUT_MS). A client cut off by the headers or request timeout gets a 408 in the
 * error envelope where one can still be written (framework-errors.ts `answerUnparsableRequest`);
 * an idle keep-alive connection is simply closed.
 *
 * @see https://nodejs.org/docs/latest-v20.x/api/http.html#httpcreateserveroptions-requestlistener
 */
export function serverTimeoutOptions(timeouts: HttpTimeouts): ServerOptions {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // Node checks both timeouts on this interval (30 s by default, which would let a client run
    // 30 s past a 1 s timeout): a client is cut off at most half its timeout, or 1 s, late.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 2))),
    // An HTTP/1.1 request without Host is refused by our onRequest hook (framework-errors.ts
    // `checkHttpRules`), in the envelope, rather than by Node with an empty 400.
    requireHostHeader: false,
  };
}
