import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorErrors, Envelope, operatorSecurity } from '../contracts/schemas.js';
import { Dashboard } from './dashboard.schemas.js';
import { readDashboard } from './dashboard.service.js';

/** The console's dashboard (docs/console.md#dashboard): counts only, no PHI, so reading it is not audited. */
export function dashboardOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/dashboard',
      {
        schema: {
          tags: ['Operator'],
          security: operatorSecurity,
          operationId: 'readOperatorDashboard',
          summary: 'Read the dashboard',
          description:
            'The operation at a glance, now: orders created per day over the last 30 days by their current status; median and 90th percentile hours from order to shipped per week over the last 12 weeks; orders waiting now (pending or processing) by age; webhook delivery attempts and failures per hour over the last 48 hours; webhook endpoints active and disabled; orders on hold now, by reason and by whom they wait on. Days, weeks and hours are UTC. Counts and ids only, never PHI.',
          response: { 200: Envelope(Dashboard), ...operatorErrors },
        },
      },
      async () => ({ success: true as const, data: await readDashboard(ctx), message: 'Dashboard' }),
    );
  };
}
