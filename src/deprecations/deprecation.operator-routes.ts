import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorErrors, Envelope, operatorSecurity } from '../contracts/schemas.js';
import { DeprecationList } from './deprecation.schemas.js';
import { listDeprecations } from './deprecation.service.js';

const tags = ['Operator'];
const security = operatorSecurity;

/** The operator's view of the deprecation registry and who still uses each entry (docs/versioning.md). */
export function deprecationOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/deprecations',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorDeprecations',
          summary: 'List deprecations and who still uses them',
          description: [
            'Every deprecated route, parameter and field of the partner API (deprecation and sunset days, the migration',
            'guide, what to use instead) with its use per credential (API key or OAuth client) and clinic: how often and',
            'when first and last seen. Each server writes its counts about every minute, so the last minute may be missing.',
          ].join(' '),
          response: { 200: Envelope(DeprecationList), ...operatorErrors },
        },
      },
      async () => ({
        success: true as const,
        data: { deprecations: await listDeprecations(ctx) },
        message: 'Deprecations',
      }),
    );
  };
}
