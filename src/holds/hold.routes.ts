import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { conflictError, Envelope, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { HOLD_REASONS } from './hold-reasons.js';
import { answerHold } from './answer-hold.service.js';
import { holdOrder } from './place-hold.service.js';
import { resumeOrder } from './resume-hold.service.js';
import { sandboxHoldInput } from './sandbox-hold.js';
import { HoldReasonList, HoldResponseBody, SandboxHoldBody, SandboxResumeBody } from './hold.schemas.js';
import type { OrderAnswer } from '../orders/order-answer.js';
import { IdParams } from '../orders/order.schemas.js';

const security = [{ apiKey: [] }];

/** The message of an answered order: what the answer did. */
function answeredMessage(status: string): string {
  if (status === 'cancelled') return 'Answer recorded; medication request cancelled';
  if (status === 'on_hold') return 'Answer recorded; the pharmacy will review it';
  return `Answer recorded; medication request resumed (now ${status})`;
}

/**
 * The partner's side of holds (docs/orders.md#holds): the catalog and the answer, answered with the
 * order as partners read it (`answer`, given by routes.ts).
 */
export function orderHoldRoutes(ctx: AppContext, answer: OrderAnswer): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/external/hold-reasons',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'listHoldReasons',
          'x-required-scope': 'orders:read',
          summary: 'List the reasons an order can be put on hold (extension)',
          description:
            'Every `reason_code` an order\u2019s `hold` can carry, with its text, whose move it is when the hold begins (`waiting_on`; null for `other`, where the hold says) and what resolves it (`answer`). Do not cancel and re-order a held order: answer it.',
          response: { 200: Envelope(HoldReasonList), ...partnerErrors },
        },
      },
      async () => ({ success: true as const, data: HOLD_REASONS.map((r) => ({ ...r })), message: 'Hold reasons' }),
    );

    app.post(
      '/api/external/medication-order/:id/hold-response',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'answerMedicationOrderHold',
          'x-required-scope': 'orders:write',
          summary: 'Answer the hold of a medication request (extension)',
          description: [
            'Your answer to an order on hold: `message` (1 to 2,000 characters) is recorded in the order\u2019s `hold_history` and the hold then waits on the pharmacy (`waiting_on: pharmacy`).',
            '`address` (the patient\u2019s address shape) becomes this order\u2019s shipping address (`shipping_address`; the patient\u2019s record is not changed); an `address_undeliverable` hold answered with one resumes at once (`order.resumed`). Its state is checked as at ordering: one the pharmacy is not licensed in, or that an item\u2019s formulary entry restricts, is refused with 400 `STATE_NOT_LICENSED`, and with the prescriber licence rule on, one the prescriber holds no licence in with 400 `PRESCRIBER_NOT_LICENSED`; both carry `details.state` and `details["address.state"]`, and change nothing.',
            '`cancel: true` cancels the order as `POST …/cancel` does (`order.cancelled`). An order not on hold is refused with 409 CONFLICT. The answer itself sends no event.',
            'Holds stack (`holds`): your answer is recorded on every open hold, and those that waited on you then wait on the pharmacy; an address resolves only the `address_undeliverable` holds that waited on you, so the order resumes only when no other hold is open. A clinical hold (`clinical: true`) stays until a pharmacist overrides it: your answer informs it, it does not resolve it.',
          ].join(' '),
          params: IdParams,
          body: HoldResponseBody,
          response: {
            200: Envelope(answer.schema),
            ...partnerErrors,
            ...notFoundError('Medication request'),
            ...conflictError('The medication request is not on hold.'),
          },
        },
      },
      async (request) => {
        const order = await answerHold(ctx, partnerOf(request).clinicId, request.params.id, request.body, partnerAudit(request));
        return { success: true as const, data: await answer.read(ctx.db, order), message: answeredMessage(order.status) };
      },
    );
  };
}

/** The sandbox's holds (development only, mounted beside the sandbox's advance in routes.ts). */
export function sandboxHoldRoutes(ctx: AppContext, answer: OrderAnswer): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/sandbox/medication-order/:id/hold',
      {
        schema: {
          tags: ['Sandbox'],
          security,
          operationId: 'holdSandboxMedicationOrder',
          'x-required-scope': 'orders:write',
          summary: 'Put a medication request on hold (development only)',
          description:
            'Puts a `pending` or `processing` order of the clinic on hold with any `reason_code` of the catalog, as the pharmacy would (actor `sandbox`), so that you can test your handling end to end: `order.on_hold`, the order\u2019s `hold`, your answer. `message` defaults to the reason\u2019s text; `waiting_on` only with `other` (default `partner`). Not available in production (404).',
          params: IdParams,
          body: SandboxHoldBody,
          response: {
            200: Envelope(answer.schema),
            ...partnerErrors,
            ...notFoundError('Medication request'),
            ...conflictError('The medication request has shipped or is final.'),
          },
        },
      },
      async (request) => {
        const order = await holdOrder(
          ctx,
          { clinicId: partnerOf(request).clinicId },
          request.params.id,
          sandboxHoldInput(request.body),
          'sandbox',
          partnerAudit(request),
        );
        return { success: true as const, data: await answer.read(ctx.db, order), message: 'Medication request is now on_hold' };
      },
    );

    app.post(
      '/api/external/sandbox/medication-order/:id/resume',
      {
        preValidation: emptyBodyWhenAbsent,
        schema: {
          tags: ['Sandbox'],
          security,
          operationId: 'resumeSandboxMedicationOrder',
          'x-required-scope': 'orders:write',
          summary: 'Resume a medication request on hold (development only)',
          description:
            'Resumes an order of the clinic on hold to the status it was held from, resolving its open holds, as the pharmacy would (actor `sandbox`): `order.resumed`. 409 when it is not on hold, and when a clinical hold (`allergy_conflict`, `duplicate_therapy`) is open: only a pharmacist\u2019s override resolves one (nothing changes). Not available in production (404).',
          params: IdParams,
          body: SandboxResumeBody,
          response: {
            200: Envelope(answer.schema),
            ...partnerErrors,
            ...notFoundError('Medication request'),
            ...conflictError('The medication request is not on hold.'),
          },
        },
      },
      async (request) => {
        const order = await resumeOrder(
          ctx,
          { clinicId: partnerOf(request).clinicId },
          request.params.id,
          { message: request.body.message },
          'sandbox',
          partnerAudit(request),
        );
        return {
          success: true as const,
          data: await answer.read(ctx.db, order),
          message: `Medication request resumed (now ${order.status})`,
        };
      },
    );
  };
}
