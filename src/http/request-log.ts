import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_COMPLETED } from '../log-format.js';

/**
 * One log line per answered request, at `info`: method, route pattern (never the URL, which can
 * carry PHI in its path or query string: see logging.ts), client address, status, duration and,
 * from the request's logger, the request id. Fastify's own two lines (incoming, completed) are off
 * (`disableRequestLogging`); at `debug` a request's arrival is logged too, for following a request
 * that never completes.
 */
export function registerRequestLog(app: FastifyInstance): void {
  // Hooks run on every request: synchronous ones cost no promise, and the arrival line's hook is
  // there only when its level is on (LOG_LEVEL is read at start-up).
  if (app.log.level === 'debug' || app.log.level === 'trace') {
    app.addHook('onRequest', (request, _reply, done) => {
      request.log.debug({ req: request }, 'incoming request');
      done();
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    logAnsweredRequest(request, reply);
    done();
  });
}

/** The line of one answered request; also called for the requests the router refuses, which skip the hooks. */
export function logAnsweredRequest(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info(
    { req: request, statusCode: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 10) / 10 },
    REQUEST_COMPLETED,
  );
}
