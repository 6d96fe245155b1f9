import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { conflictError, Envelope, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { advanceOrder } from './order-transition.service.js';
import { AdvanceBody, IdParams, OrderView } from './order.schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';

/**
 * Sandbox routes: mounted in the development environment only (routes.ts), so that in production
 * they do not exist and answer 404 like any unknown route.
 */
export function sandboxRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/sandbox/medication-order/:id/advance',
      {
        // The body is optional: no body means "to the next status".
        preValidation: emptyBodyWhenAbsent,
        schema: {
          tags: ['Sandbox'],
          security: [{ apiKey: [] }],
          operationId: 'advanceSandboxMedicationOrder',
          'x-required-scope': 'orders:write',
          summary: 'Advance a medication request (development only)',
          description:
            'Moves a medication request of the clinic to its next status, or to `to` through every legal step (pending → processing → shipped → delivered; `cancelled` from pending or processing), in one transaction. Shipping generates a test tracking number in the carrier\u2019s format (UPS `1Z`+16, FedEx 12 digits, USPS 22 digits). Each step is recorded in the history (actor `sandbox`) and writes its event. Not available in production (404).',
          params: IdParams,
          body: AdvanceBody,
          response: {
            200: Envelope(OrderView),
            ...partnerErrors,
            ...notFoundError('Medication request'),
            ...conflictError('`to` cannot be reached from the current status, or the status is final.'),
          },
        },
      },
      async (request) => {
        const data = await advanceOrder(
          ctx,
          { clinicId: partnerOf(request).clinicId },
          request.params.id,
          partnerAudit(request),
          request.body.to,
        );
        return { success: true as const, data, message: `Medication request is now ${data.status}` };
      },
    );
  };
}
