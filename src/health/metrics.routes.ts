import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { guardOperatorRequest } from '../http/operator-guard.js';
import { CONTENT_TYPES, negotiateExposition, renderMetrics } from './metrics-exposition.js';

const Exposition = Type.String({ description: 'The metrics, one sample a line (see docs/operations.md).' });

/**
 * GET /metrics for Prometheus, behind the operator token. Outside /api, so the JSON content
 * negotiation of the API never refuses a scraper's Accept header; the token is checked here.
 */
export function metricsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/metrics',
      {
        onRequest: async (request, reply) => guardOperatorRequest(ctx, request, reply),
        schema: {
          tags: ['Operator'],
          operationId: 'getMetrics',
          summary: 'Prometheus metrics',
          description: [
            'Request durations, rate-limit rejections, Redis outages, webhook deliveries, the database pool and the',
            'process (memory, CPU, event loop). OpenMetrics 1.0.0 when the `Accept` header prefers',
            '`application/openmetrics-text`, the Prometheus text format 0.0.4 otherwise. Needs the operator token.',
          ].join(' '),
          security: [{ operatorToken: [] }],
          response: {
            200: {
              description: 'The metrics.',
              content: {
                [CONTENT_TYPES.prometheus]: { schema: Exposition },
                [CONTENT_TYPES.openmetrics]: { schema: Exposition },
              },
            },
            401: Type.Ref('ErrorEnvelope', { description: 'Missing or wrong operator bearer token.' }),
            429: Type.Ref('ErrorEnvelope', { description: 'Too many failed operator authentications from this address.' }),
          },
        },
      },
      async (request, reply) => {
        const format = negotiateExposition(request.headers.accept);
        const body = await renderMetrics(ctx.metrics.registry, format);
        return reply.type(CONTENT_TYPES[format]).send(body);
      },
    );
  };
}
