import type { FastifyRequest } from 'fastify';
import { forbidden } from '../errors.js';

/**
 * Behind a proxy (TRUST_PROXY set), partner and operator requests must have travelled over HTTPS:
 * PHI and credentials never cross a network in clear text. A request from a trusted proxy is judged
 * by the protocol the proxy says the client used (the last X-Forwarded-Proto entry, the one the
 * nearest proxy wrote); a proxy that does not say is refused, since nothing proves the client used
 * HTTPS. Any other request (a client that bypassed the proxy) is judged by its own connection.
 * Without TRUST_PROXY there is nothing to check: production then speaks TLS itself (main.ts refuses
 * to start otherwise), and development serves plain HTTP on purpose.
 *
 * @see docs/operations.md "TLS and proxies"
 */
export function requireHttps(request: FastifyRequest, isTrustedProxy: (address: string | undefined) => boolean): void {
  const socket = request.raw.socket as { remoteAddress?: string; encrypted?: boolean } | undefined;
  if (socket !== undefined && isTrustedProxy(socket.remoteAddress)) {
    const header = request.headers['x-forwarded-proto'];
    const proto = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').at(-1)?.trim().toLowerCase() ?? '';
    if (proto === 'https') return;
    if (proto === '') {
      throw forbidden(
        'HTTPS is required: the proxy did not say which protocol this request reached it over (it must send X-Forwarded-Proto)',
      );
    }
    throw forbidden(
      proto === 'http'
        ? 'HTTPS is required: this request reached the proxy over http; call the API with https://'
        : 'HTTPS is required: the proxy says this request reached it over a protocol other than https',
    );
  }
  if (socket?.encrypted === true) return;
  throw forbidden('HTTPS is required: this request reached the server over plain HTTP; call the API with https://');
}
