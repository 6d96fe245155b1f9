import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { Envelope, errorRef } from '../contracts/schemas.js';
import { portalChangeErrors, portalNotFound, portalReadErrors, portalSecurity, portalTags } from './portal-common.schemas.js';
import {
  PortalSandboxAdvanceBody,
  PortalSandboxOrder,
  PortalSandboxOrderPage,
  PortalSandboxOrderParams,
  PortalSandboxOrdersQuery,
  PortalSandboxShipmentParams,
} from './portal-sandbox.schemas.js';
import {
  advanceSandboxOrder,
  holdSandboxOrder,
  listSandboxOrders,
  recordSandboxShipmentEvent,
  resumeSandboxOrder,
} from './portal-sandbox.service.js';
import { portalAudit } from '../http/audit-context.js';
import { SandboxHoldBody } from '../holds/hold.schemas.js';
import { ShipmentEventBody } from '../shipments/shipment.schemas.js';
import { portalDeveloperOf, partnerUserOf } from './partner-user-identity.js';

const tags = portalTags;
const security = portalSecurity;

/**
 * The portal's sandbox: mounted in the development environment only (routes.ts), as the sandbox API
 * is, so that in production these routes do not exist (404).
 */
export function portalSandboxRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/portal/sandbox/orders',
      {
        schema: {
          tags,
          security,
          operationId: 'portalListSandboxOrders',
          summary: 'Your clinic\u2019s orders, to drive in the sandbox (development only)',
          description:
            'Newest first, each with its status, tracking number and `next_statuses` (what it may become next). `limit` 1 to 100 (default 25); `next_cursor` as `cursor` for the next page. Not available in production (404).',
          querystring: PortalSandboxOrdersQuery,
          response: { 200: Envelope(PortalSandboxOrderPage), ...portalReadErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listSandboxOrders(ctx, partnerUserOf(request), request.query),
        message: 'Sandbox orders',
      }),
    );

    app.post(
      '/api/portal/sandbox/orders/:orderId/advance',
      {
        schema: {
          tags,
          security,
          operationId: 'portalAdvanceSandboxOrder',
          summary: 'Move an order in the sandbox (developers; development only)',
          description:
            'Moves the order to `status` through every legal step, exactly as `POST /api/external/sandbox/medication-order/{id}/advance` does: each step is in the history and writes its webhook event (`order.fulfilled` on shipped, with a test tracking number). Not available in production (404).',
          params: PortalSandboxOrderParams,
          body: PortalSandboxAdvanceBody,
          response: {
            200: Envelope(PortalSandboxOrder),
            ...portalChangeErrors,
            ...portalNotFound('Medication request'),
            409: errorRef('`status` cannot be reached from the order\u2019s status, or that status is final.'),
          },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        const data = await advanceSandboxOrder(
          ctx,
          user,
          request.params.orderId,
          request.body.status,
          portalAudit(request, user),
        );
        return { success: true as const, data, message: `Medication request is now ${data.status}` };
      },
    );

    app.post(
      '/api/portal/sandbox/orders/:orderId/hold',
      {
        schema: {
          tags,
          security,
          operationId: 'portalHoldSandboxOrder',
          summary: 'Put an order on hold in the sandbox (developers; development only)',
          description:
            'Puts a `pending` or `processing` order on hold with any reason of the catalog, as the pharmacy would and as `POST /api/external/sandbox/medication-order/{id}/hold` does (an order already on hold gets the new hold): the hold is in the history (actor `sandbox`) and writes `order.on_hold`. `message` defaults to the reason\u2019s text; `waiting_on` only with `other` (default `partner`). An order waiting on your clinic then shows under "Needs your answer". Not available in production (404).',
          params: PortalSandboxOrderParams,
          // The sandbox API's own body (POST /api/external/sandbox/medication-order/{id}/hold).
          body: SandboxHoldBody,
          response: {
            200: Envelope(PortalSandboxOrder),
            ...portalChangeErrors,
            ...portalNotFound('Medication request'),
            409: errorRef('The order has shipped or is final.'),
          },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        const data = await holdSandboxOrder(ctx, user, request.params.orderId, request.body, portalAudit(request, user));
        return { success: true as const, data, message: 'Medication request is now on_hold' };
      },
    );

    app.post(
      '/api/portal/sandbox/orders/:orderId/resume',
      {
        schema: {
          tags,
          security,
          operationId: 'portalResumeSandboxOrder',
          summary: 'Resume an order on hold in the sandbox (developers; development only)',
          description:
            'Returns an order on hold to the status it was held from, as the pharmacy would: in the history (actor `sandbox`), with the `order.resumed` event. No body. Not available in production (404).',
          params: PortalSandboxOrderParams,
          response: {
            200: Envelope(PortalSandboxOrder),
            ...portalChangeErrors,
            ...portalNotFound('Medication request'),
            409: errorRef('The order is not on hold.'),
          },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        const data = await resumeSandboxOrder(ctx, user, request.params.orderId, portalAudit(request, user));
        return { success: true as const, data, message: `Medication request is now ${data.status}` };
      },
    );

    app.post(
      '/api/portal/sandbox/orders/:orderId/shipments/:shipmentId/events',
      {
        schema: {
          tags,
          security,
          operationId: 'portalRecordSandboxShipmentEvent',
          summary: 'Record a tracking event of a package in the sandbox (developers; development only)',
          description:
            'Plays the carrier for a package of one of your clinic\u2019s orders, exactly as `POST /api/external/sandbox/medication-order/{id}/shipments/{shipmentId}/events` does (actor `sandbox`): the latest event by `occurred_at` sets the package\u2019s status and sends `shipment.updated`; every package delivered delivers the order (`order.delivered`); `exception` or `returned_to_sender` puts a shipped order on hold, `delivery_exception`, waiting on your clinic (`order.on_hold`). A delivered package ignores events. Another clinic\u2019s order, or a package of another order: 404. Not available in production (404).',
          params: PortalSandboxShipmentParams,
          body: ShipmentEventBody,
          response: {
            200: Envelope(PortalSandboxOrder),
            ...portalChangeErrors,
            ...portalNotFound('Medication request or shipment'),
          },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        const { orderId, shipmentId } = request.params;
        const data = await recordSandboxShipmentEvent(ctx, user, orderId, shipmentId, request.body, portalAudit(request, user));
        return { success: true as const, data, message: `Shipment event recorded (order ${data.status})` };
      },
    );
  };
}
