import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { Envelope, Uuid } from '../contracts/schemas.js';
import { portalAudit } from '../http/audit-context.js';
import { getOrder } from '../fulfillment/order-read.service.js';
import { OrderView } from '../fulfillment/order-view.schemas.js';
import { partnerUserOf } from './partner-user-identity.js';
import { portalNotFound, portalReadErrors, portalSecurity, portalTags } from './portal-common.schemas.js';

const tags = portalTags;
const security = portalSecurity;

export const PortalOrderParams = Type.Object({ orderId: Uuid('The medication request\u2019s id.') });

/**
 * One order of the clinic, as the partner API reads it (issue 31: the order's journey in the
 * portal): its status, hold, shipments and their tracking events. Another clinic's order is not
 * found (404, and an `access_denied` row in the audit trail, as every portal route); a read is
 * audited as the partner API's is, naming the portal user.
 */
export function portalOrderRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/portal/orders/:orderId',
      {
        schema: {
          tags,
          security,
          operationId: 'portalGetOrder',
          summary: 'Read one of your clinic\u2019s orders',
          description:
            'Exactly what `GET /api/external/medication-order/{id}` answers: status, hold, medications, shipping, tracking number, shipments with their tracking events, status and hold history. Audited as a read by you. Another clinic\u2019s order is not found.',
          params: PortalOrderParams,
          response: { 200: Envelope(OrderView), ...portalReadErrors, ...portalNotFound('Medication request') },
        },
      },
      async (request) => {
        const user = partnerUserOf(request);
        const data = await getOrder(ctx, { clinicId: user.clinicId }, request.params.orderId, portalAudit(request, user));
        return { success: true as const, data, message: 'Medication request retrieved successfully' };
      },
    );
  };
}
