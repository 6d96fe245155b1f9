import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { pingDatabase } from '../db/create-db.js';
import { AppError } from '../errors.js';

/** Liveness and readiness probes: no authentication, outside the rate limit. */
export function healthRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const Status = Type.Object({ status: Type.String() });
    app.get(
      '/healthz',
      { schema: { tags: ['Health'], operationId: 'getHealth', summary: 'The process is up', response: { 200: Status } } },
      () => ({ status: 'ok' }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          tags: ['Health'],
          operationId: 'getReadiness',
          summary: 'The database answers, and Redis when REDIS_URL is set',
          response: { 200: Status, 503: Type.Ref('ErrorEnvelope') },
        },
      },
      async () => {
        if (!(await pingDatabase(ctx.db))) {
          throw new AppError('SERVICE_UNAVAILABLE', 503, 'Database is not reachable');
        }
        // The instance still serves while Redis is down (counting in memory), but it is degraded.
        if (ctx.redis && !(await ctx.redis.ping())) {
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            503,
            'Redis is not reachable: rate limits are counted per instance until it returns',
          );
        }
        return { status: 'ready' };
      },
    );
  };
}
