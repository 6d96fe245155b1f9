import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { operatorErrors, conflictError, Envelope, Page } from '../contracts/schemas.js';
import { getOrderForOperator, listOrders } from './order-operator.service.js';
import { transitionOrder } from './order-moves.service.js';
import { OperatorListQuery, OperatorOrderSummary, OperatorStatusBody } from './order-operator.schemas.js';
import { OperatorOrderDetail } from './order-operator-detail.schemas.js';
import { IdParams } from '../orders/order.schemas.js';
import { OrderView } from './order-view.schemas.js';

const tags = ['Operator'];
const security = [{ operatorToken: [] }];

/** The pharmacy's order endpoints (behind ADMIN_TOKEN): the queue, one order, status changes. */
export function orderOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/medication-requests',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorMedicationRequests',
          summary: 'List medication requests',
          description:
            'The pharmacist\u2019s work queue: by default the orders still to work (pending, processing, on_hold) oldest first, then the others newest first (`sort=newest`: every order newest first). Filtered by status, clinic, carrier, order id and the day of creation (`created_from`, `created_to`: the pharmacy\u2019s calendar), and searched with `q` (patient name, prescriber name, any part of the order id, tracking number); pass `next_cursor` back as `cursor` for the next page. Each item names its clinic, its patient (with date of birth), its prescriber and its medications, and its age in working hours: every order and every patient listed is recorded as read in the audit trail.',
          querystring: OperatorListQuery,
          response: { 200: Envelope(Page(OperatorOrderSummary)), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listOrders(ctx, request.query, operatorAudit(request)),
        message: 'Medication requests',
      }),
    );

    app.get(
      '/api/admin/medication-requests/:id',
      {
        schema: {
          tags,
          security,
          operationId: 'getOperatorMedicationRequest',
          summary: 'Read a medication request',
          description:
            'Any clinic\u2019s order in full (the partner view), with its clinic\u2019s name, the patient\u2019s name, date of birth, phone and shipping address, the prescriber\u2019s name, NPI and veterinarian flag, and the orders of its refill chain. Recorded in the audit trail as reads of the order, its patient and the chain\u2019s other orders.',
          params: IdParams,
          response: { 200: Envelope(OperatorOrderDetail), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await getOrderForOperator(ctx, request.params.id, operatorAudit(request)),
        message: 'Medication request retrieved successfully',
      }),
    );

    app.post(
      '/api/admin/medication-requests/:id/status',
      {
        schema: {
          tags,
          security,
          operationId: 'updateOperatorMedicationRequestStatus',
          summary: 'Change the status of a medication request',
          description:
            'The pharmacy\u2019s transition: pending → processing → shipped (`tracking_number` required, in the carrier\u2019s format: 400 naming `tracking_number` otherwise) → delivered; pending or processing → cancelled (with an optional `reason`, kept in the history the operator reads and never sent to the partner). Any other change is refused with 409 CONFLICT naming the current and requested status. In production, a move to shipped is refused with 409 while an item whose entry has a formula has no fill (`details` names each item); in development, such items are filled with generated lots in the same change. Writes the event of the new status.',
          params: IdParams,
          body: OperatorStatusBody,
          response: {
            200: Envelope(OrderView),
            ...operatorErrors,
            ...conflictError('The transition is not allowed from the current status.'),
          },
        },
      },
      async (request) => {
        const data = await transitionOrder(
          ctx,
          'all',
          request.params.id,
          request.body.status,
          'operator',
          operatorAudit(request),
          { trackingNumber: request.body.tracking_number, reason: request.body.reason },
        );
        return { success: true as const, data, message: `Medication request is now ${data.status}` };
      },
    );
  };
}
