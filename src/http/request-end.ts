import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';
import { logAnsweredRequest } from './request-log.js';
import { observeRequest } from './request-metrics.js';

/**
 * The end of every answered request, in one synchronous onResponse hook (a hook run per request
 * each is a cost every request pays; docs/performance.md): its duration observed in
 * `http_request_duration_seconds` and its log line written. At `debug` a request's arrival is
 * logged too, for following a request that never completes (LOG_LEVEL is read at start-up, so the
 * hook exists only then).
 */
export function registerRequestEnd(app: FastifyInstance, metrics: Metrics): void {
  if (app.log.level === 'debug' || app.log.level === 'trace') {
    app.addHook('onRequest', (request, _reply, done) => {
      request.log.debug({ req: request }, 'incoming request');
      done();
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    observeRequest(metrics, request, reply);
    logAnsweredRequest(request, reply);
    done();
  });
}
