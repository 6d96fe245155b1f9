import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { operatorErrors, Envelope, Page } from '../contracts/schemas.js';
import { AuditEvent, AuditEventListQuery } from './audit.schemas.js';
import { listAuditEvents } from './audit.service.js';

const tags = ['Operator'];
const security = [{ operatorToken: [] }];

/** The operator's view of the audit trail (docs/audit.md). Reading it is not itself audited: it holds no PHI. */
export function auditOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
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
            'Who created, read, changed or cancelled which patient, practitioner, order, refill request, webhook, clinic, key, OAuth client, formulary entry or carrier, when and from where: newest first, optionally filtered by date range (`from` inclusive, `to` exclusive), actor (type and/or id), action, resource (type and/or id) and clinic; pass `next_cursor` back as `cursor` for the next page. The caller\u2019s own reads are left out unless `include_own_reads=true`. Reads appear within a second. Ids and the names of the pharmacy\u2019s own people only, never PHI.',
          querystring: AuditEventListQuery,
          response: { 200: Envelope(Page(AuditEvent)), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listAuditEvents(ctx, request.query, operatorAudit(request).actor),
        message: 'Audit events',
      }),
    );
  };
}
