import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { operatorErrors, conflictError, Envelope, Page } from '../contracts/schemas.js';
import { getOrderForOperator, listOrders } from './order-operator.service.js';
import { transitionOrder } from '../orders/order-transition.service.js';
import { OperatorListQuery, OperatorOrderDetail, OperatorOrderSummary, OperatorStatusBody } from './order-operator.schemas.js';
import { IdParams, OrderView } from '../orders/order.schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import { HOLD_REASONS } from '../holds/hold-reasons.js';
import { holdOrder, resumeOrder } from '../holds/order-hold.service.js';
import { HoldBody, HoldReasonList, ResumeBody } from '../holds/order-hold.schemas.js';
import { fillOrder } from '../compounding/order-fill.service.js';
import { FillBody } from '../compounding/order-fill.schemas.js';

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

    app.post(
      '/api/admin/medication-requests/:id/fill',
      {
        schema: {
          tags,
          security,
          operationId: 'fillOperatorMedicationRequest',
          summary: 'Record the fill of medication items',
          description:
            'What the pharmacy made for each item named (`item_id`: `medication_requests[].id` of the order): its `lot_number`, when it was `compounded_at` (not in the future), and optionally the `ingredient_lots` used (none expired before the day of compounding). The server computes the `beyond_use_date` from the item’s formula (USP <795>, never after an ingredient lot’s expiry) and records the entry’s storage; an entry with no formula is filled with its lot only. A `processing` or `on_hold` order only (409 otherwise); an item already filled is refused with 409 naming it; bad input is a 400 naming the field, and nothing is written. In production an order cannot ship while an item whose entry has a formula is unfilled (docs/compounding.md#the-fill).',
          params: IdParams,
          body: FillBody,
          response: {
            200: Envelope(OrderView),
            ...operatorErrors,
            ...conflictError('The order is not processing or on hold, or an item named is already filled.'),
          },
        },
      },
      async (request) => {
        const data = await fillOrder(ctx, request.params.id, request.body, operatorAudit(request));
        return { success: true as const, data, message: 'Fill recorded' };
      },
    );

    app.post(
      '/api/admin/medication-requests/:id/hold',
      {
        schema: {
          tags,
          security,
          operationId: 'holdOperatorMedicationRequest',
          summary: 'Put a medication request on hold',
          description:
            'Stops a `pending` or `processing` order with a `reason_code` of the catalog (`GET /api/external/hold-reasons`) and a `message` the partner reads (it may hold PHI: it is never in an event). `waiting_on` is the catalog\u2019s, except for `other`, where it is required. Holding an order already on hold changes its reason, message and whose move it is (it keeps the status it resumes to). A shipped or final order is refused with 409 CONFLICT. Writes `order.on_hold`; recorded in the history and the audit trail with who held it.',
          params: IdParams,
          body: HoldBody,
          response: {
            200: Envelope(OrderView),
            ...operatorErrors,
            ...conflictError('The medication request has shipped or is final.'),
          },
        },
      },
      async (request) => {
        const data = await holdOrder(ctx, 'all', request.params.id, request.body, 'operator', operatorAudit(request));
        return { success: true as const, data, message: 'Medication request is now on_hold' };
      },
    );

    app.post(
      '/api/admin/medication-requests/:id/resume',
      {
        preValidation: emptyBodyWhenAbsent,
        schema: {
          tags,
          security,
          operationId: 'resumeOperatorMedicationRequest',
          summary: 'Resume a medication request on hold',
          description:
            'Returns an order on hold to the status it was held from (`pending` or `processing`), with an optional `message` for the history. An order not on hold is refused with 409 CONFLICT (of a resume and a partner\u2019s answer that resumes or cancels, sent together, exactly one succeeds). Writes `order.resumed`.',
          params: IdParams,
          body: ResumeBody,
          response: {
            200: Envelope(OrderView),
            ...operatorErrors,
            ...conflictError('The medication request is not on hold.'),
          },
        },
      },
      async (request) => {
        const data = await resumeOrder(ctx, 'all', request.params.id, request.body.message, 'operator', operatorAudit(request));
        return { success: true as const, data, message: `Medication request resumed (now ${data.status})` };
      },
    );

    app.get(
      '/api/admin/hold-reasons',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorHoldReasons',
          summary: 'List the hold reasons',
          description:
            'The catalog partners read at `GET /api/external/hold-reasons`: code, text, whose move it is, what resolves it.',
          response: { 200: Envelope(HoldReasonList), ...operatorErrors },
        },
      },
      async () => ({ success: true as const, data: HOLD_REASONS.map((r) => ({ ...r })), message: 'Hold reasons' }),
    );
  };
}
