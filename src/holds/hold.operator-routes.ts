import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { conflictError, Envelope, operatorErrors } from '../contracts/schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import type { OrderAnswer } from '../orders/order-answer.js';
import { IdParams } from '../orders/order.schemas.js';
import { HOLD_REASONS } from './hold-reasons.js';
import { holdOrder } from './place-hold.service.js';
import { resumeOrder } from './resume-hold.service.js';
import { HoldBody, HoldReasonList, ResumeBody } from './hold.schemas.js';

const tags = ['Operator'];
const security = [{ operatorToken: [] }];

/**
 * The pharmacy's holds (docs/orders.md#holds): putting an order on hold, resuming it, and the
 * catalog. A hold and a resume answer with the order as partners read it (`answer`, given by routes.ts).
 */
export function holdOperatorRoutes(ctx: AppContext, answer: OrderAnswer): FastifyPluginAsyncTypebox {
  return async (app) => {
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
            200: Envelope(answer.schema),
            ...operatorErrors,
            ...conflictError('The medication request has shipped or is final.'),
          },
        },
      },
      async (request) => {
        const order = await holdOrder(ctx, 'all', request.params.id, request.body, 'operator', operatorAudit(request));
        return { success: true as const, data: await answer.read(ctx.db, order), message: 'Medication request is now on_hold' };
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
            200: Envelope(answer.schema),
            ...operatorErrors,
            ...conflictError('The medication request is not on hold.'),
          },
        },
      },
      async (request) => {
        const order = await resumeOrder(ctx, 'all', request.params.id, request.body.message, 'operator', operatorAudit(request));
        return {
          success: true as const,
          data: await answer.read(ctx.db, order),
          message: `Medication request resumed (now ${order.status})`,
        };
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
