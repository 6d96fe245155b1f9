import type { FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_COMPLETED } from '../log-format.js';

/*
 * One log line per answered request, at `info`: method, route pattern (never the URL, which can
 * carry PHI in its path or query string: see logging.ts), client address, status, duration and,
 * from the request's logger, the request id. Fastify's own two lines (incoming, completed) are off
 * (`disableRequestLogging`); the hook that writes it is request-end.ts's.
 */

/** The line of one answered request; also called for the requests the router refuses, which skip the hooks. */
export function logAnsweredRequest(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info(
    { req: request, statusCode: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 10) / 10 },
    REQUEST_COMPLETED,
  );
}
