import type { FastifyRequest } from 'fastify';

/**
 * Which guard a request falls under: the partner API, the operator API, the partner portal's API
 * (a portal user's session: http/portal-guard.ts), the OAuth token endpoint
 * (HTTPS behind a proxy, but its client authenticates in the route: oauth/oauth.routes.ts), a
 * carrier's webhook (`/api/carrier-events`: HTTPS behind a proxy, JSON, but no key: the route checks
 * the carrier's signature itself, shipments/easypost.routes.ts), the FHIR API (`/fhir`: a
 * partner's credential as on the partner API, FHIR JSON, OperationOutcome refusals: fhir/fhir.routes.ts)
 * or none.
 */
export type Area = 'partner' | 'admin' | 'portal' | 'oauth' | 'carrier' | 'fhir' | 'public';

/** `/api/external` and everything below it, but not `/api/externally`. */
export function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function areaOfPath(path: string): Area {
  if (isUnder(path, '/api/external')) return 'partner';
  // The operator's reference page (openapi.ts OPERATOR_DOCS_PREFIX) is behind the operator's credentials.
  if (isUnder(path, '/api/admin') || isUnder(path, '/docs/operator')) return 'admin';
  if (isUnder(path, '/api/portal')) return 'portal';
  if (isUnder(path, '/oauth')) return 'oauth';
  if (isUnder(path, '/api/carrier-events')) return 'carrier';
  if (isUnder(path, '/fhir')) return 'fhir';
  return 'public';
}

/**
 * The path the router matched (`/api/external/carriers` for `/api/%65xternal/carriers`: the router
 * decodes percent-escapes, so the guards must look at what it matched, never at the raw URL), or
 * for an unknown route the decoded request path.
 */
export function routedPath(request: FastifyRequest): string {
  const matched = request.routeOptions.url;
  if (matched !== undefined) return matched;
  return decodedPath(request.url);
}

/** The path part of a raw URL, percent-decoded when it can be. */
export function decodedPath(url: string): string {
  const raw = url.split('?')[0] ?? '/';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
