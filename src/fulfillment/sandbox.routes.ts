import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { conflictError, Envelope, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { AdvanceBody, IdParams } from '../orders/order.schemas.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import { recordShipmentEvent } from '../shipments/shipment-commands.service.js';
import { advanceOrder } from './order-moves.service.js';
import { loadOrderView } from './order-view.js';
import { OrderView } from './order-view.schemas.js';
import { ShipmentEventBody, ShipmentParams } from '../shipments/shipment.schemas.js';

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

    app.post(
      '/api/external/sandbox/medication-order/:id/shipments/:shipmentId/events',
      {
        schema: {
          tags: ['Sandbox'],
          security: [{ apiKey: [] }],
          operationId: 'recordSandboxShipmentEvent',
          'x-required-scope': 'orders:write',
          summary: 'Record a tracking event of a shipment (development only)',
          description:
            'Plays the carrier for a shipment of one of the clinic\u2019s orders, so that you can test `shipment.updated`, the order delivered when every shipment is, and the `delivery_exception` hold that `exception` and `returned_to_sender` put a shipped order on. The same rules as the pharmacy\u2019s events (docs/shipping.md#shipments-and-their-journey): the latest event by `occurred_at` sets the status, a replay records nothing, a delivered shipment ignores events. Another clinic\u2019s order, or a shipment of another order: 404. Not available in production (404).',
          params: ShipmentParams,
          body: ShipmentEventBody,
          response: { 200: Envelope(OrderView), ...partnerErrors, ...notFoundError('Medication request or shipment') },
        },
      },
      async (request) => {
        const { id, shipmentId } = request.params;
        const order = await recordShipmentEvent(
          ctx,
          { clinicId: partnerOf(request).clinicId },
          id,
          shipmentId,
          request.body,
          'sandbox',
          partnerAudit(request),
        );
        const data = await loadOrderView(ctx.db, order);
        return { success: true as const, data, message: `Shipment event recorded (order ${data.status})` };
      },
    );
  };
}
