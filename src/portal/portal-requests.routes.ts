import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { Envelope } from '../contracts/schemas.js';
import { ListRequestLogQuery, RequestLogPage } from '../request-log/request-log.schemas.js';
import { listRequestLog } from '../request-log/request-log.service.js';
import { portalReadErrors, portalSecurity, portalTags } from './portal-common.schemas.js';
import { partnerUserOf } from './partner-user-identity.js';

/**
 * The portal's request log: the page `GET /api/external/requests` answers, of the signed-in user's
 * clinic, with the same filters (docs/request-log.md). A request id from an error finds its request.
 */
export function portalRequestRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/portal/requests',
      {
        schema: {
          tags: portalTags,
          security: portalSecurity,
          operationId: 'portalListRequests',
          summary: 'Search your clinic\u2019s request log',
          description:
            'Your clinic\u2019s answered partner requests of the last 14 days, newest first, as `GET /api/external/requests` answers them: filter by `status` (`404` or `4xx`), `method`, `route`, `since`, `until` and `request_id`; `limit` 1 to 100 (default 50), `next_cursor` as `cursor` for the next page.',
          querystring: ListRequestLogQuery,
          response: { 200: Envelope(RequestLogPage), ...portalReadErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listRequestLog(ctx, partnerUserOf(request), request.query),
        message: 'Request log retrieved successfully',
      }),
    );
  };
}
