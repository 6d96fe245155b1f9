import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { Envelope, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { IdParams } from '../orders/order.schemas.js';
import { RefillBody, RefillData, RefillRequestView } from './refill.schemas.js';
import { createRefill } from './refill.service.js';
import { getRefillRequest } from './refill-read.service.js';

const security = [{ apiKey: [] }];

/** The partner's refill endpoints (spec: Endpoints; reading a refill request is an extension). */
export function refillRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/refill-request',
      {
        schema: {
          tags: ['Refills'],
          security,
          operationId: 'createRefillRequest',
          'x-required-scope': 'refills:write',
          summary: 'Request a refill',
          description:
            'Refills a `shipped` or `delivered` medication request (an original or a refill): creates a refill request, a new prescription and a new `pending` medication request for the same patient, practitioner and shipping choice (at today\u2019s price). 400 messages: "Medication request not found", "Refills are not possible for pending medication requests", "Refill request already exists", and one for processing or cancelled requests and for prescriptions without refills left. Writes `order.created` and `refill.ready`.',
          body: RefillBody,
          response: { 200: Envelope(RefillData), ...partnerErrors },
        },
      },
      async (request) => {
        const data = await createRefill(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Refill request created successfully' };
      },
    );

    app.get(
      '/api/external/refill-request/:id',
      {
        schema: {
          tags: ['Refills'],
          security,
          operationId: 'getRefillRequest',
          'x-required-scope': 'refills:read',
          summary: 'Read a refill request (extension)',
          description:
            'Its status (`open` until its order ships or is cancelled, then `fulfilled` or `cancelled`) and its new order.',
          params: IdParams,
          response: { 200: Envelope(RefillRequestView), ...partnerErrors, ...notFoundError('Refill request') },
        },
      },
      async (request) => {
        const data = await getRefillRequest(ctx, partnerOf(request), request.params.id, partnerAudit(request));
        return { success: true as const, data, message: 'Refill request retrieved successfully' };
      },
    );
  };
}
