import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requestLogEntry } from '../request-log/request-log-entry.js';
import { logAnsweredRequest } from './request-log.js';
import { observeRequest } from './request-metrics.js';

/**
 * The end of every answered request, in one synchronous onResponse hook (a hook run per request
 * each is a cost every request pays; docs/performance.md): its duration observed in
 * `http_request_duration_seconds`, its log line written and, for an authenticated partner, its
 * entry handed to the request log's buffer (written later in batches: no statement here). At `debug` a request's arrival is
 * logged too, for following a request that never completes (LOG_LEVEL is read at start-up, so the
 * hook exists only then).
 */
export function registerRequestEnd(app: FastifyInstance, ctx: Pick<AppContext, 'metrics' | 'requestLog' | 'clock'>): void {
  const { metrics, requestLog, clock } = ctx;
  if (app.log.level === 'debug' || app.log.level === 'trace') {
    app.addHook('onRequest', (request, _reply, done) => {
      request.log.debug({ req: request }, 'incoming request');
      done();
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    observeRequest(metrics, request, reply);
    logAnsweredRequest(request, reply);
    const entry = requestLogEntry(request, reply, clock().getTime());
    if (entry !== null) requestLog.record(entry);
    done();
  });
}
