import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { conflictError, Envelope, operatorErrors } from '../contracts/schemas.js';
import { IdParams } from '../orders/order.schemas.js';
import { SignoffBody, SignoffView } from './signoff.schemas.js';
import { signOffOrder } from './signoff.service.js';

/** The pharmacist's sign-offs of an order (docs/compounding.md#sign-offs). */
export function signoffOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/admin/medication-requests/:id/signoffs',
      {
        schema: {
          tags: ['Operator'],
          security: [{ operatorToken: [] }],
          operationId: 'signOffOperatorMedicationRequest',
          summary: 'Sign off a medication request (pharmacist)',
          description: [
            'Records a pharmacist\u2019s sign-off with their name and the time: `prescription_review` (the prescription verified; any time before the order ships) or `product_check` (the finished product checked; once the order is `processing`, before it ships).',
            'A pharmacist signed in to the console signs as themselves. The operator token and an admin must name the pharmacist with `pharmacist_id`, the staff id of an enabled account with the pharmacist role (400 otherwise): the token alone cannot sign.',
            'A second sign-off of the same kind, or one on a shipped, delivered or cancelled order, is refused with 409 CONFLICT.',
            'With REQUIRE_PHARMACIST_SIGNOFF (default in production) the pharmacy cannot move an order to `processing` without its review, nor to `shipped` without its check.',
          ].join(' '),
          params: IdParams,
          body: SignoffBody,
          response: {
            200: Envelope(SignoffView),
            ...operatorErrors,
            ...conflictError('Already signed off, or the order is past the point where it is.'),
          },
        },
      },
      async (request) => {
        const data = await signOffOrder(ctx, request.params.id, request.body, operatorAudit(request));
        return { success: true as const, data, message: `Signed off: ${data.kind} by ${data.pharmacist_name}` };
      },
    );
  };
}
