import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerOf } from '../http/partner-guard.js';
import { Envelope, partnerErrors } from '../contracts/schemas.js';
import { REQUEST_LOG_ROUTE } from './request-log-entry.js';
import { ListRequestLogQuery, RequestLogPage } from './request-log.schemas.js';
import { listRequestLog } from './request-log.service.js';

/**
 * The partner's request log (issue 22, item 3; docs/request-log.md). It needs `webhooks:read`: the
 * log spans every credential of the clinic and every resource, so it is the clinic's integration
 * data (with its webhook endpoints and deliveries), not any one resource's; a key restricted to
 * orders must not see what the clinic's other keys do.
 */
export function requestLogRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      REQUEST_LOG_ROUTE,
      {
        schema: {
          tags: ['Request log'],
          security: [{ apiKey: [] }],
          operationId: 'listRequestLog',
          'x-required-scope': 'webhooks:read',
          summary: 'Search your clinic\u2019s request log (extension)',
          description: [
            'Your clinic\u2019s answered requests of the last 14 days (REQUEST_LOG_RETENTION_DAYS), newest first, every',
            'key and OAuth client of the clinic: time, method, route template, status, duration, request id, credential,',
            'Idempotency-Key, and an error\u2019s code with a safe summary. Never a body, a query value or a header.',
            'Filters combine: `status` (`404` or a class, `4xx`), `method`, `route` (a template), `since` and `until` (ISO-8601) and',
            '`request_id` (an error\u2019s `request_id` finds its request). Entries are written in batches about a second',
            'after the answer. Requests refused before the key was accepted (401, 429) are not in it, nor this route\u2019s own',
            'successful answers. `limit` 1 to 100 (default 50); pass `next_cursor` as `cursor` for the next page.',
          ].join(' '),
          querystring: ListRequestLogQuery,
          response: { 200: Envelope(RequestLogPage), ...partnerErrors },
        },
      },
      async (request) => {
        const data = await listRequestLog(ctx, partnerOf(request), request.query);
        return { success: true as const, data, message: 'Request log retrieved successfully' };
      },
    );
  };
}
