import type { FastifyReply, FastifyRequest } from 'fastify';
import { UNMATCHED_ROUTE } from '../contracts/route-label.js';
import type { Metrics } from '../metrics.js';

/*
 * Every answered request is observed in `http_request_duration_seconds` (by request-end.ts's hook),
 * labelled by the route pattern (`/api/external/patient/:id`), never by the URL: ids would make a
 * series per patient. /metrics itself is counted too, so a scraper's own traffic is visible.
 */

/** One answered request; also called for the requests the router refuses, which skip the hooks. */
export function observeRequest(metrics: Metrics, request: FastifyRequest, reply: FastifyReply): void {
  metrics.httpRequestDuration.observe(
    { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: String(reply.statusCode) },
    reply.elapsedTime / 1000,
  );
}
