import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { Envelope } from '../contracts/schemas.js';
import { publicBaseUrl } from '../http/request-host.js';
import { portalReadErrors, portalSecurity, portalTags } from './portal-common.schemas.js';
import { PortalOverview } from './portal-overview.schemas.js';
import { portalOverview } from './portal-overview.service.js';
import { partnerUserOf } from './partner-user-identity.js';

/** The portal's first page: the environment, the clinic, this minute's rate-limit use, the last 24 hours. */
export function portalOverviewRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/portal/overview',
      {
        schema: {
          tags: portalTags,
          security: portalSecurity,
          operationId: 'portalGetOverview',
          summary: 'Your clinic at a glance',
          description:
            'The environment, your clinic, the FHIR API\u2019s base address, this minute\u2019s use of the rate limit (per credential: `used` is the busiest one\u2019s) and, from the request log, the requests and the errors by code of the last 24 hours.',
          response: { 200: Envelope(PortalOverview), ...portalReadErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await portalOverview(ctx, partnerUserOf(request), publicBaseUrl(request, ctx.config)),
        message: 'Overview',
      }),
    );
  };
}
