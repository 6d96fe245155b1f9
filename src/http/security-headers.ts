import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { isUnder, routedPath } from './areas.js';

/**
 * What an API answer may do in a browser: nothing. JSON is never a page, so it loads nothing and
 * may not be framed.
 */
const API_CSP = "default-src 'none';frame-ancestors 'none'"; // as helmet writes it

/**
 * The one inline style of swagger-ui (the colours of its logo, a <style> in the standalone preset's
 * SVG), allowed by its digest rather than by 'unsafe-inline'. Should a swagger-ui update change it,
 * only the logo loses its colours.
 */
const SWAGGER_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/**
 * The reference page (/docs, swagger-ui): its own scripts, styles and the document it fetches, from
 * this origin only; images also as data: URIs (swagger-ui's icons). No inline script, no eval, no
 * third party (swagger-ui's validator badge is off), no framing, no forms posting elsewhere.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${SWAGGER_LOGO_STYLE}`,
].join('; ');

/** Where swagger-ui's static files are served: they keep their own caching (ETag, Last-Modified). */
const CACHEABLE_PREFIX = '/docs/static';

/**
 * The headers every answer carries, helmet's or not: for the answers written before any hook runs
 * (framework-errors.ts), which helmet never sees. Their values are the ones helmet is configured with
 * below, so that the two never disagree.
 */
export const BASELINE_SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': API_CSP,
  'X-Frame-Options': 'DENY',
} as const;

export function applyBaselineSecurityHeaders(reply: FastifyReply): void {
  reply.headers(BASELINE_SECURITY_HEADERS);
}

/**
 * Security headers on every answer (@see docs/errors.md "Security headers"). Called first by the
 * app's one onRequest hook (app.ts), so that the guards' refusals (401, 429, the shutdown 503) carry
 * them too.
 *
 * - `Cache-Control: no-store`: answers hold PHI or credentials; no browser, proxy or CDN keeps them.
 *   Helmet does not set it; swagger-ui's static assets are exempt.
 * - helmet: nosniff, `Referrer-Policy: no-referrer`, a CSP that allows nothing (swagger-ui replaces
 *   it with DOCS_CSP under /docs), `X-Frame-Options: DENY`, HSTS for a year with subdomains (ignored
 *   by browsers over plain HTTP; in production the API is HTTPS only), and helmet's other defaults
 *   (Cross-Origin-Opener/Resource-Policy same-origin, X-DNS-Prefetch-Control off, and so on), which
 *   cost a server-to-server API nothing.
 */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(HELMET_HEADERS);
  if (!isUnder(routedPath(request), CACHEABLE_PREFIX)) reply.header('Cache-Control', BASELINE_SECURITY_HEADERS['Cache-Control']);
}

const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  referrerPolicy: { policy: 'no-referrer' },
  xFrameOptions: { action: 'deny' },
  strictTransportSecurity: { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true },
};

/**
 * Helmet's headers, computed once at start-up by running its middleware against a response that
 * only records them. They depend on the options alone, never on the request; @fastify/helmet
 * rebuilt the middleware (and re-parsed the CSP) on every request, about 6 % of a GET's CPU
 * (docs/performance.md).
 */
export const HELMET_HEADERS: Readonly<Record<string, string>> = helmetHeaders(HELMET_OPTIONS);

function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number): void {
      headers.set(name, String(value));
    },
    removeHeader(name: string): void {
      headers.delete(name);
    },
  };
  const outcome: { finished: boolean; error?: unknown } = { finished: false };
  // No option of ours reads the request (a CSP nonce would, and is per request by nature).
  helmet(options)(undefined as unknown as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    outcome.finished = true;
    outcome.error = error;
  });
  // Helmet's middleware is synchronous; should a version ever not be, fail at start-up, not later.
  if (!outcome.finished || outcome.error !== undefined) {
    throw new Error('helmet did not set its headers synchronously', { cause: outcome.error });
  }
  return Object.fromEntries(headers);
}
