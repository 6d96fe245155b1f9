import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';
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
 * Security headers on every answer (@see docs/errors.md "Security headers"). Registered before the
 * guards' hook, so that their refusals (401, 429, the shutdown 503) carry them too.
 *
 * - `Cache-Control: no-store`: answers hold PHI or credentials; no browser, proxy or CDN keeps them.
 *   Helmet does not set it; swagger-ui's static assets are exempt.
 * - helmet: nosniff, `Referrer-Policy: no-referrer`, a CSP that allows nothing (swagger-ui replaces
 *   it with DOCS_CSP under /docs), `X-Frame-Options: DENY`, HSTS for a year with subdomains (ignored
 *   by browsers over plain HTTP; in production the API is HTTPS only), and helmet's other defaults
 *   (Cross-Origin-Opener/Resource-Policy same-origin, X-DNS-Prefetch-Control off, and so on), which
 *   cost a server-to-server API nothing.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true },
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!isUnder(routedPath(request), CACHEABLE_PREFIX))
      reply.header('Cache-Control', BASELINE_SECURITY_HEADERS['Cache-Control']);
  });
}
