import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { Envelope, operatorErrors, operatorSecurity, Page } from '../contracts/schemas.js';
import { HoldQueueItem, HoldQueueQuery } from './hold-queue.schemas.js';
import { listHolds } from './hold-queue.service.js';

const tags = ['Operator'];

/** The console's Holds view (docs/console.md#holds): the orders on hold, by whom they wait on. */
export function holdQueueOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/holds',
      {
        schema: {
          tags,
          security: operatorSecurity,
          operationId: 'listOperatorHolds',
          summary: 'List the orders on hold',
          description:
            'Every order on hold, oldest hold first (the time its hold began, then its id), filtered by whom it waits on (`waiting_on`: the partner or the pharmacy) and by `reason_code`; pass `next_cursor` back as `cursor` for the next page. Each item names its clinic and patient, the status a resume returns it to, the hold (reason, message, whom it waits on, since when), when the partner last answered it, and its age in working hours since the hold began. Every order and patient listed is recorded as read in the audit trail.',
          querystring: HoldQueueQuery,
          response: { 200: Envelope(Page(HoldQueueItem)), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listHolds(ctx, request.query, operatorAudit(request)),
        message: 'Orders on hold',
      }),
    );
  };
}
