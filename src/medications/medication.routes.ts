import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerOf } from '../http/partner-guard.js';
import { Envelope, partnerErrors } from '../contracts/schemas.js';
import { FormularyPage, FormularyQuery } from './medication.schemas.js';
import { listFormularyForPartner } from './medication.service.js';

/** The partner's read of its clinic's formulary (issue 11, item 3; see docs/orders.md). */
export function medicationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/external/medications',
      {
        schema: {
          operationId: 'listMedications',
          'x-required-scope': 'formulary:read',
          tags: ['Formulary'],
          security: [{ apiKey: [] }],
          summary: 'List your clinic\u2019s formulary (extension)',
          description: [
            'The medications the pharmacy has set up for your clinic: an order\u2019s `medication_requests[].medication`',
            'must be one of these names (matched ignoring case and extra spaces). Newest first, `limit` (1 to 100,',
            'default 50) per page; pass `next_cursor` as `cursor` for the next page (null on the last).',
          ].join(' '),
          querystring: FormularyQuery,
          response: { 200: Envelope(FormularyPage), ...partnerErrors },
        },
      },
      async (request) => {
        const data = await listFormularyForPartner(ctx, partnerOf(request), request.query);
        return { success: true as const, data, message: 'Formulary retrieved successfully' };
      },
    );
  };
}
