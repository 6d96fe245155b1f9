import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { dayStart, deprecationOf, type DeprecationCode, type DeprecationEntry, type RouteDeprecationCode } from './registry.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A deprecated route's registry code (deprecated-route.ts): its answers carry Deprecation, Sunset and Link. */
    deprecation?: RouteDeprecationCode;
  }
}

export interface DeprecationHeaders {
  /** RFC 9745: `@` and the Unix time in seconds (a structured-field Date). */
  readonly Deprecation: string;
  /** RFC 8594: an HTTP-date (IMF-fixdate, RFC 9110 §5.6.7). */
  readonly Sunset: string;
  /** RFC 9745 §3: the migration guide, an HTML page. */
  readonly Link: string;
}

/** The three headers of an entry, exactly as sent. */
export function deprecationHeaders(entry: DeprecationEntry): DeprecationHeaders {
  return {
    Deprecation: `@${Math.floor(dayStart(entry.deprecated_at) / 1000)}`,
    // toUTCString writes IMF-fixdate: `Tue, 25 May 2027 00:00:00 GMT`.
    Sunset: new Date(dayStart(entry.sunset_at)).toUTCString(),
    Link: `<${entry.link}>; rel="deprecation"; type="text/html"`,
  };
}

/** Computed once per entry: the hot path only copies strings. */
const HEADERS = new Map<DeprecationEntry, DeprecationHeaders>();

function headersOf(entry: DeprecationEntry): DeprecationHeaders {
  let headers = HEADERS.get(entry);
  if (!headers) HEADERS.set(entry, (headers = deprecationHeaders(entry)));
  return headers;
}

/**
 * Puts an entry's headers on the answer. When the answer already announces another deprecation (a
 * deprecated field on a deprecated route), `Deprecation` and `Sunset` keep the earliest date (each
 * is a single value) and `Link` lists both guides.
 */
export function applyDeprecationHeaders(reply: FastifyReply, entry: DeprecationEntry): void {
  const headers = headersOf(entry);
  const deprecation = reply.getHeader('Deprecation');
  if (typeof deprecation !== 'string') {
    reply.headers({ ...headers });
    return;
  }
  if (Number(headers.Deprecation.slice(1)) < Number(deprecation.slice(1))) reply.header('Deprecation', headers.Deprecation);
  const sunset = reply.getHeader('Sunset');
  if (typeof sunset !== 'string' || Date.parse(headers.Sunset) < Date.parse(sunset)) reply.header('Sunset', headers.Sunset);
  const link = reply.getHeader('Link');
  const links = typeof link === 'string' && link !== '' ? link.split(/,\s*(?=<)/) : [];
  if (!links.includes(headers.Link)) reply.header('Link', [...links, headers.Link].join(', '));
}

/**
 * For a handler that sees a deprecated parameter or field in use: the answer carries the
 * deprecation's headers and the use is counted for the request's credential (in memory; written in
 * batches: usage-tally.ts). A deprecated route needs no call: its config does both (api-version.ts).
 */
export function markDeprecatedUse(ctx: Pick<AppContext, 'deprecationUsage'>, reply: FastifyReply, code: DeprecationCode): void {
  applyDeprecationHeaders(reply, deprecationOf(code));
  if (reply.request.partner) ctx.deprecationUsage.record(code, reply.request.partner);
}

/** The registry entry of the route a request matched, when that route is deprecated. */
export function routeDeprecationOf(request: FastifyRequest): DeprecationEntry | undefined {
  // `config` is absent on requests the router refused (framework-errors.ts).
  const code = (request.routeOptions.config as { deprecation?: RouteDeprecationCode } | undefined)?.deprecation;
  return code === undefined ? undefined : deprecationOf(code);
}
