import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { conflictError, Envelope, notFoundError, operatorErrors } from '../contracts/schemas.js';
import type { OrderAnswer } from '../orders/order-answer.js';
import { IdParams } from '../orders/order.schemas.js';
import { addOrderShipment, recordShipmentEvent } from './shipment-commands.service.js';
import { AddShipmentBody, ShipmentEventBody, ShipmentParams } from './shipment.schemas.js';

const tags = ['Operator'];
const security = [{ operatorToken: [] }];

/**
 * The pharmacy's shipments of an order (docs/shipping.md#shipments-and-their-journey), answered with
 * the order as partners read it (`answer`, given by routes.ts).
 */
export function shipmentOperatorRoutes(ctx: AppContext, answer: OrderAnswer): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/admin/medication-requests/:id/shipments',
      {
        schema: {
          tags,
          security,
          operationId: 'addOperatorMedicationRequestShipment',
          summary: 'Add a shipment (another package) to a shipped medication request',
          description:
            'Adds a package to a `shipped` order (or one on a `delivery_exception` hold; else 409 CONFLICT): its tracking number, in the carrier\u2019s format (400 naming `tracking_number`), with the order\u2019s carrier and service unless `carrier_id` (then `service_id`) is given. The shipment starts `in_transit` with its first event, and `shipment.updated` is sent. The order is then delivered only when every shipment is. Answers the order as the partner reads it, with its `shipments`. Admins, pharmacists and technicians may call it (docs/console.md#roles).',
          params: IdParams,
          body: AddShipmentBody,
          response: {
            200: Envelope(answer.schema),
            ...operatorErrors,
            ...conflictError('The medication request has not shipped, or is delivered or cancelled.'),
          },
        },
      },
      async (request) => {
        const order = await addOrderShipment(ctx, request.params.id, request.body, operatorAudit(request));
        return { success: true as const, data: await answer.read(ctx.db, order), message: 'Shipment added' };
      },
    );

    app.post(
      '/api/admin/medication-requests/:id/shipments/:shipmentId/events',
      {
        schema: {
          tags,
          security,
          operationId: 'recordOperatorShipmentEvent',
          summary: 'Record a tracking event of a shipment',
          description:
            'Records one step of a shipment\u2019s journey, as a carrier would report it. The shipment takes the status of its latest event by `occurred_at` (an older event is kept in the journey without moving the status back); the same event twice (status and time) is recorded once; an event for a `delivered` shipment is ignored (200, nothing changes). A status change sends `shipment.updated`; when every shipment is delivered the order becomes `delivered` (`order.delivered`, `delivered_at` the last delivery\u2019s time); `exception` and `returned_to_sender` put a shipped order on hold (`delivery_exception`, waiting on the partner). A shipment of another order: 404. Answers the order as the partner reads it. Admins, pharmacists and technicians may call it (docs/console.md#roles).',
          params: ShipmentParams,
          body: ShipmentEventBody,
          response: { 200: Envelope(answer.schema), ...operatorErrors, ...notFoundError('Medication request or shipment') },
        },
      },
      async (request) => {
        const { id, shipmentId } = request.params;
        const order = await recordShipmentEvent(ctx, 'all', id, shipmentId, request.body, 'operator', operatorAudit(request));
        return {
          success: true as const,
          data: await answer.read(ctx.db, order),
          message: `Shipment event recorded (order ${order.status})`,
        };
      },
    );
  };
}
