import { setting, text, trueOrFalse, wholeNumber } from './setting.js';

/** The HTTP edge: rate limits and their Redis, proxies, TLS, slow clients, retried requests, the public address. */

/**
 * IDEMPOTENCY_LOCK_TIMEOUT_MS's default: longer than any request runs (the slowest, a webhook test
 * call, is bounded by WEBHOOK_TIMEOUT_MS, at most 60 s), short enough that a request lost with its
 * process does not lock its key for long.
 */
export const DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT_MS = 2 * 60 * 1000;

export const EDGE_SETTINGS = {
  RATE_LIMIT_PER_MINUTE: setting({
    schema: wholeNumber(1, 1_000_000),
    default: { development: 100, production: 60 },
    doc: "Partner requests allowed per API key per minute (the spec's limits). See [rate limits](../README.md#decisions-the-spec-leaves-to-us).",
  }),
  REDIS_URL: setting({
    schema: text(),
    defaultText: 'unset (each process counts in memory)',
    accepts: '`redis://[[user]:password@]host[:port][/db]` or `rediss://…`',
    doc:
      'The Redis every instance shares for the rate limits; `rediss://` for TLS, and the database number ' +
      '(`/0`–`/15` on a stock Redis) is honoured. Set it whenever more than one instance serves partners, so ' +
      'that N instances allow the limit once, not N times. See [below](#redis_url).',
  }),
  TRUST_PROXY: setting({
    schema: text(),
    defaultText: 'unset (no proxy)',
    accepts: 'IP addresses and CIDR ranges, comma-separated; `false`',
    doc:
      'The proxies or load balancers in front of the server, IPv4 or IPv6: `10.0.0.0/8,127.0.0.1`, `fd00::/8`. ' +
      'Only a request whose direct peer is in the list has its `X-Forwarded-For` (the client address, used by ' +
      'the per-address rate limit and the logs) and `X-Forwarded-Proto` believed; `X-Forwarded-For` is walked ' +
      'from the nearest hop and stops at the first address not in the list, so a client cannot forge its ' +
      'address. Once set, partner and operator requests must have reached the proxy over HTTPS ' +
      '(`X-Forwarded-Proto: https`), else `403`. `false` or empty: no proxy. `true` is refused (it used to ' +
      'trust every hop): list your proxies. See [docs/operations.md](operations.md#tls-and-proxies).',
  }),
  TRUST_FORWARDED_HOST: setting({
    schema: trueOrFalse(),
    default: false,
    doc:
      '`true` when your proxy (listed in `TRUST_PROXY`, which it needs: set alone it stops the start) sets ' +
      '`X-Forwarded-Host` to the host the browser asked for. Only then is that header believed, as the host ' +
      "of the console's own origin (the cross-site request check on console changes and on sign-in). " +
      'Otherwise `X-Forwarded-Host` is ignored, from any peer, and the `Host` header counts: the usual setup ' +
      "keeps the browser's `Host` at the proxy (nginx `proxy_set_header Host $host;`). A proxy that passes " +
      "on a client's own `X-Forwarded-Host` must leave this `false`.",
  }),
  TLS_CERT_FILE: setting({
    schema: text(),
    defaultText: 'unset (plain HTTP)',
    accepts: 'a file path',
    doc:
      'With `TLS_KEY_FILE` (both or neither): a PEM certificate with its chain. The server then speaks HTTPS ' +
      'itself, TLS 1.2 or 1.3 only. An unreadable file, or a key that does not match, stops the start naming ' +
      'the variable. **In production** the server refuses to start on plain HTTP unless `TRUST_PROXY` is set.',
  }),
  TLS_KEY_FILE: setting({
    schema: text(),
    defaultText: 'unset (plain HTTP)',
    accepts: 'a file path',
    doc: "With `TLS_CERT_FILE` (both or neither): the certificate's private key, PEM.",
  }),
  HEADERS_TIMEOUT_MS: setting({
    schema: wholeNumber(100, 600_000),
    default: 10_000,
    doc:
      "How long a client may take to send a request's headers, in ms, and no longer than " +
      '`REQUEST_TIMEOUT_MS` (Node refuses a headers timeout above the request timeout). Past it the ' +
      'connection gets `408 REQUEST_TIMEOUT` and is closed. See [docs/operations.md](operations.md#slow-clients).',
  }),
  REQUEST_TIMEOUT_MS: setting({
    schema: wholeNumber(100, 3_600_000),
    default: 30_000,
    doc:
      'How long a client may take to send a whole request, headers and body, in ms; cannot be turned off. ' +
      'Past it the connection gets `408 REQUEST_TIMEOUT` and is closed. The time the server takes to answer ' +
      'is not counted.',
  }),
  KEEP_ALIVE_TIMEOUT_MS: setting({
    schema: wholeNumber(100, 600_000),
    default: 5_000,
    doc:
      'How long an idle keep-alive connection stays open after its last answer, in ms (announced in ' +
      '`Keep-Alive: timeout=`; Node closes about a second later). Behind a load balancer that reuses ' +
      "connections, set it above the balancer's idle timeout (AWS ALB: 60 s, so `65000`), or the balancer " +
      'may send a request on a connection the server is closing.',
  }),
  IDEMPOTENCY_LOCK_TIMEOUT_MS: setting({
    schema: wholeNumber(1_000, 3_600_000),
    default: DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT_MS,
    doc:
      'How long a request may hold its `Idempotency-Key` before a retry with the same key may take it over, ' +
      'in ms, and longer than `WEBHOOK_TIMEOUT_MS` (the slowest request, a webhook test call, runs that ' +
      'long). It matters only after a crash: a request lost with its process keeps its key this long, and ' +
      'retries get `409` until then. Shorter means a faster recovery after a crash; never set it below the ' +
      "time your slowest request may take, or a slow request's retry could run it a second time. See " +
      '[docs/idempotency.md](idempotency.md#how-it-works-across-instances).',
  }),
  PUBLIC_BASE_URL: setting({
    schema: text(),
    accepts: 'an http(s) URL without query or fragment',
    doc:
      'The address people reach this deployment at (`https://fulfillment.example.com`): the partner ' +
      "portal's invitation links start with it. Unset: the console's invitations use the address the " +
      "console reached the server at, and the command line the address the server's start banner prints " +
      '(`http://127.0.0.1:PORT` in development, from `HOST` and `PORT`). It is also the base of the FHIR ' +
      "API's links (`fullUrl`, `next`), of the token endpoint SMART discovery advertises, and of the token " +
      "endpoint URL a client assertion may name as its audience; unset, those come from each request's " +
      "Host header, and a production server's start banner warns. See [docs/portal.md](portal.md#accounts) " +
      'and [docs/fhir.md](fhir.md).',
  }),
};
