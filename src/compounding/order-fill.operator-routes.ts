import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { conflictError, Envelope, operatorErrors } from '../contracts/schemas.js';
import type { OrderAnswer } from '../orders/order-answer.js';
import { IdParams } from '../orders/order.schemas.js';
import { fillOrder } from './order-fill.service.js';
import { FillBody } from './order-fill.schemas.js';

const tags = ['Operator'];
const security = [{ operatorToken: [] }];

/**
 * The pharmacy's fill of an order's items (docs/compounding.md#the-fill), answered with the order as
 * partners read it (`answer`, given by routes.ts).
 */
export function fillOperatorRoutes(ctx: AppContext, answer: OrderAnswer): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/admin/medication-requests/:id/fill',
      {
        schema: {
          tags,
          security,
          operationId: 'fillOperatorMedicationRequest',
          summary: 'Record the fill of medication items',
          description:
            'What the pharmacy made for each item named (`item_id`: `medication_requests[].id` of the order): its `lot_number`, when it was `compounded_at` (not in the future), and optionally the `ingredient_lots` used (none expired before the day of compounding). The server computes the `beyond_use_date` from the item’s formula (USP <795>, never after an ingredient lot’s expiry) and records the entry’s storage; an entry with no formula is filled with its lot only. A `processing` or `on_hold` order only (409 otherwise); an item already filled is refused with 409 naming it; bad input is a 400 naming the field, and nothing is written. In production an order cannot ship while an item whose entry has a formula is unfilled (docs/compounding.md#the-fill). The fill records who recorded it (a staff member; none for the operator token): with REQUIRE_INDEPENDENT_CHECK that person cannot give the order\u2019s final check. Admins, pharmacists and technicians may call it (docs/console.md#roles).',
          params: IdParams,
          body: FillBody,
          response: {
            200: Envelope(answer.schema),
            ...operatorErrors,
            ...conflictError('The order is not processing or on hold, or an item named is already filled.'),
          },
        },
      },
      async (request) => {
        const order = await fillOrder(ctx, request.params.id, request.body, operatorAudit(request));
        return { success: true as const, data: await answer.read(ctx.db, order), message: 'Fill recorded' };
      },
    );
  };
}
