import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { adminErrors, Envelope, Page } from '../http/schemas.js';
import { AuditEvent, AuditEventListQuery } from './audit.schemas.js';
import { listAuditEvents } from './audit.service.js';

const tags = ['Operator'];
const security = [{ operatorToken: [] }];

/** The operator's view of the audit trail (docs/audit.md). Reading it is not itself audited: it holds no PHI. */
export function auditAdminRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/audit-events',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorAuditEvents',
          summary: 'List audit events',
          description:
            'Who created, read, changed or cancelled which patient, practitioner, order, refill request or webhook, when and from where: newest first, optionally filtered by resource, clinic and action; pass `next_cursor` back as `cursor` for the next page. Reads appear within a second. Ids only, never PHI.',
          querystring: AuditEventListQuery,
          response: { 200: Envelope(Page(AuditEvent)), ...adminErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listAuditEvents(ctx, request.query),
        message: 'Audit events',
      }),
    );
  };
}
