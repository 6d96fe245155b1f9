import type { FastifyRequest } from 'fastify';

/**
 * The host a request was addressed to, as this server believes it (issue 21, item 4). Fastify's
 * `request.host` takes X-Forwarded-Host from any trusted proxy (TRUST_PROXY); this server takes it
 * only when TRUST_FORWARDED_HOST also says the proxy sets it (a proxy that passes on whatever the
 * client wrote there would let a client choose the "own" origin the console's CSRF check compares
 * with). Otherwise the Host header counts, whoever sent the request.
 */
export function requestHost(request: FastifyRequest, trustForwardedHost: boolean): string {
  if (trustForwardedHost) return request.host;
  return request.headers.host ?? '';
}

/**
 * This server's own origin for `request`: the scheme the client used (behind a trusted proxy, its
 * X-Forwarded-Proto, which TRUST_PROXY already believes: see https-required.ts) and `requestHost`.
 */
export function ownOrigin(request: FastifyRequest, trustForwardedHost: boolean): string {
  return `${request.protocol}://${requestHost(request, trustForwardedHost)}`;
}

/**
 * The base address partners reach this server at, for links the server hands out: PUBLIC_BASE_URL
 * when set, else this request's own origin (`ownOrigin`).
 */
export function publicBaseUrl(
  request: FastifyRequest,
  config: { readonly publicBaseUrl: string | null; readonly trustForwardedHost: boolean },
): string {
  return config.publicBaseUrl ?? ownOrigin(request, config.trustForwardedHost);
}
