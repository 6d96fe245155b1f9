import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { conflictError, Envelope, operatorErrors } from '../contracts/schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import type { OrderAnswer } from '../orders/order-answer.js';
import { IdParams } from '../orders/order.schemas.js';
import { HOLD_REASONS } from './hold-reasons.js';
import { holdOrder } from './place-hold.service.js';
import { resolveHold, resumeOrder } from './resume-hold.service.js';
import { HoldBody, HoldIdParams, HoldReasonList, ResolveHoldBody, ResumeBody } from './hold.schemas.js';

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
            'Stops a `pending` or `processing` order with a `reason_code` of the catalog (`GET /api/external/hold-reasons`) and a `message` the partner reads (it may hold PHI: it is never in an event). `waiting_on` is the catalog\u2019s, except for `other`, where it is required. Holding an order already on hold adds a hold (holds stack: the order resumes when the last is resolved, and keeps the status it resumes to); a reason already open on the order is refused with 409 CONFLICT naming `reason_code`. A shipped or final order is refused with 409 CONFLICT. Writes `order.on_hold` when the order goes on hold, and when the new hold waits on the partner while others are open; recorded in the history and the audit trail with who held it.',
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
            'Resolves every open hold of an order and returns it to the status it was held from (`pending`, `processing`, or `shipped` after a `delivery_exception` hold), with an optional `message` for the history. A clinical hold among them (`allergy_conflict`, `duplicate_therapy`: `clinical` in the catalog) is overridden only by a pharmacist signed in as themselves, with `override_reason` (400 naming it when missing; the `message` is not one): the operator token, an admin or a technician is refused with 403 FORBIDDEN naming why, and nothing changes. To resolve one hold and leave the others, `POST \u2026/holds/{hold_id}/resolve`. An order not on hold is refused with 409 CONFLICT (of a resume and a partner\u2019s answer that resumes or cancels, sent together, exactly one succeeds). Writes `order.resumed`; audited as `resume`, and `override` for a clinical hold.',
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
        const order = await resumeOrder(ctx, 'all', request.params.id, request.body, 'operator', operatorAudit(request));
        return {
          success: true as const,
          data: await answer.read(ctx.db, order),
          message: `Medication request resumed (now ${order.status})`,
        };
      },
    );

    app.post(
      '/api/admin/medication-requests/:id/holds/:hold_id/resolve',
      {
        preValidation: emptyBodyWhenAbsent,
        schema: {
          tags,
          security,
          operationId: 'resolveOperatorMedicationRequestHold',
          summary: 'Resolve one hold of a medication request',
          description:
            'Resolves one open hold (`holds[].hold_id` of the order), with an optional `message` for the history: the order stays on hold while others are open (history `resolve`) and returns to the status it was held from with the last (`resume`, `order.resumed`). A clinical hold (`allergy_conflict`, `duplicate_therapy`) is overridden only by a pharmacist signed in as themselves, with `override_reason` (400 naming it when missing; given for a hold that is not clinical, 400 too): the operator token, an admin or a technician is refused with 403 FORBIDDEN naming why. A hold not of this order: 404; one already resolved, or an order not on hold: 409 CONFLICT (of two resolutions sent together, one succeeds). Audited as `resume`, or `override` for a clinical hold.',
          params: HoldIdParams,
          body: ResolveHoldBody,
          response: {
            200: Envelope(answer.schema),
            ...operatorErrors,
            ...conflictError('The hold is already resolved, or the medication request is not on hold.'),
          },
        },
      },
      async (request) => {
        const { id, hold_id: holdId } = request.params;
        const order = await resolveHold(ctx, id, holdId, request.body, operatorAudit(request));
        return {
          success: true as const,
          data: await answer.read(ctx.db, order),
          message:
            order.status === 'on_hold'
              ? 'Hold resolved; the medication request stays on hold for its other holds'
              : `Hold resolved; medication request resumed (now ${order.status})`,
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
