import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { RequestValidationError } from '../contracts/validation.js';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { conflictError, Envelope, forbiddenError, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { CreateOrderBody, CreateOrderData, IdParams } from '../orders/order.schemas.js';
import { ListOrdersQuery, OrderPage, OrderView } from './order-view.schemas.js';
import { cancelOrder } from './order-moves.service.js';
import { getOrder, listOrders } from './order-read.service.js';
import { createOrder } from './order-intake.service.js';
import { formularyProblemOfBody } from '../orders/order-body-check.js';

const security = [{ apiKey: [] }];

/** The partner's order endpoints (spec: Endpoints; retrieval, listing and cancellation are extensions). */
export function orderRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/medication-order',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'createMedicationOrder',
          'x-required-scope': 'orders:write',
          summary: 'Create a medication request',
          description:
            'Creates a medication request in status `pending` for a patient and practitioner of the clinic. Every medication must be in the clinic\u2019s formulary; `unit_of_measure`, when omitted, is the formulary entry\u2019s `dispense_unit` (`each` when it sets none), never derived from `dose`; `refills` is a whole number written as a string. The shipping choice is priced for the patient\u2019s state when ordering (free shipping applied). At most 20 medications. Writes the `order.created` event.',
          body: CreateOrderBody,
          response: {
            200: Envelope(CreateOrderData),
            ...partnerErrors,
            ...forbiddenError,
            ...notFoundError('Patient or practitioner (`details` names which)'),
          },
        },
        // Fastify passes what the route's handler sends on to the app's error handler, which answers it.
        errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
          const send = (answer: unknown) => reply.send(answer);
          withFormularyMisses(ctx, error, request).then(send, send);
        },
      },
      async (request) => {
        const data = await createOrder(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Medication request created successfully' };
      },
    );

    app.get(
      '/api/external/medication-order/:id',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'getMedicationOrder',
          'x-required-scope': 'orders:read',
          summary: 'Read a medication request (extension)',
          description:
            'Status, medications, shipping choice and cost, tracking number, timestamps, status history, refills authorized, used and remaining, and the order a refill was made of. Another clinic\u2019s order is not found.',
          params: IdParams,
          response: { 200: Envelope(OrderView), ...partnerErrors, ...notFoundError('Medication request') },
        },
      },
      async (request) => {
        const data = await getOrder(ctx, partnerOf(request), request.params.id, partnerAudit(request));
        return { success: true as const, data, message: 'Medication request retrieved successfully' };
      },
    );

    app.get(
      '/api/external/medication-orders',
      {
        schema: {
          operationId: 'listMedicationOrders',
          'x-required-scope': 'orders:read',
          tags: ['Orders'],
          security,
          summary: 'List your clinic\u2019s medication requests (extension)',
          description: [
            'Your clinic\u2019s orders, newest first, each as `GET /api/external/medication-order/{id}` shows it; only',
            'those in `status` and of `patient_id` when given (another clinic\u2019s patient matches none), and that',
            'received `lot_number` when given (an item\u2019s own lot or an ingredient lot of its fill: a recall). `limit` 1 to',
            '100 (default 50) per page; pass `next_cursor` as `cursor` for the next page (null on the last).',
          ].join(' '),
          querystring: ListOrdersQuery,
          response: { 200: Envelope(OrderPage), ...partnerErrors },
        },
      },
      async (request) => {
        const data = await listOrders(ctx, partnerOf(request), request.query, partnerAudit(request));
        return { success: true as const, data, message: 'Medication requests retrieved successfully' };
      },
    );

    app.post(
      '/api/external/medication-order/:id/cancel',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'cancelMedicationOrder',
          'x-required-scope': 'orders:write',
          summary: 'Cancel a medication request (extension)',
          description:
            'Cancels a `pending`, `processing` or `on_hold` medication request; any other status is refused with 409 CONFLICT naming it. Writes the `order.cancelled` event. A cancelled refill gives its refill back to the prescription.',
          params: IdParams,
          response: {
            200: Envelope(OrderView),
            ...partnerErrors,
            ...notFoundError('Medication request'),
            ...conflictError(
              'The medication request can no longer be cancelled (it has shipped, been delivered or been cancelled).',
            ),
          },
        },
      },
      async (request) => {
        const data = await cancelOrder(ctx, partnerOf(request), request.params.id, partnerAudit(request));
        return { success: true as const, data, message: 'Medication request cancelled' };
      },
    );
  };
}

/**
 * A medication order refused by its schema names the formulary's misses too (order-body-check.ts):
 * every problem of an order in one answer, not one stage after another. The error goes on to the
 * app's error handler, which answers it; any other error goes on unchanged.
 */
async function withFormularyMisses(ctx: AppContext, error: unknown, request: FastifyRequest): Promise<unknown> {
  if (!(error instanceof RequestValidationError) || !request.partner) return error;
  const problem = await formularyProblemOfBody(ctx, request.partner.clinicId, request.body);
  if (!problem) return error;
  // A field the schema already refused keeps the schema's word.
  const misses = Object.fromEntries(Object.entries(problem.details).filter(([field]) => !(field in error.details)));
  if (Object.keys(misses).length === 0) return error;
  return new AppError('VALIDATION_ERROR', 400, `${error.message}; ${problem.message}`, { ...error.details, ...misses });
}
