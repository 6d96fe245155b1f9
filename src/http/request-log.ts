import type { FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_COMPLETED } from '../log-format.js';
import { clientRequestIdOf } from './request-id.js';

/*
 * One log line per answered request, at `info`: method, route pattern (never the URL, which can
 * carry PHI in its path or query string: see http/logging.ts), client address, status, duration and,
 * from the request's logger, the request id (the server's own), and the client's X-Request-Id as
 * `clientRequestId` when it sent a usable one (http/request-id.ts). Fastify's own two lines (incoming, completed) are off
 * (`disableRequestLogging`); the hook that writes it is request-end.ts's.
 */

/** The line of one answered request; also called for the requests the router refuses, which skip the hooks. */
export function logAnsweredRequest(request: FastifyRequest, reply: FastifyReply): void {
  const clientRequestId = clientRequestIdOf(request);
  request.log.info(
    {
      req: request,
      statusCode: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      ...(clientRequestId === null ? {} : { clientRequestId }),
    },
    REQUEST_COMPLETED,
  );
}
