import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { auditOperatorRoutes } from './audit/audit.operator-routes.js';
import { healthRoutes } from './health/health.routes.js';
import { metricsRoutes } from './health/metrics.routes.js';
import { holdQueueOperatorRoutes } from './holds/hold-queue.operator-routes.js';
import { holdOperatorRoutes } from './holds/hold.operator-routes.js';
import { fillOperatorRoutes } from './compounding/order-fill.operator-routes.js';
import { ORDER_ANSWER } from './fulfillment/order-view.js';
import { recallOperatorRoutes } from './compounding/recall.operator-routes.js';
import { orderOperatorRoutes } from './fulfillment/order.operator-routes.js';
import { signoffOperatorRoutes } from './compounding/signoff.operator-routes.js';
import { shipmentOperatorRoutes } from './shipments/shipment.operator-routes.js';
import { orderRoutes } from './fulfillment/order.routes.js';
import { orderHoldRoutes, sandboxHoldRoutes } from './holds/hold.routes.js';
import { refillRoutes } from './refills/refill.routes.js';
import { requestLogRoutes } from './request-log/request-log.routes.js';
import { eventLogRoutes } from './events/event-log.routes.js';
import { sandboxRoutes } from './fulfillment/sandbox.routes.js';
import { medicationRoutes } from './medications/medication.routes.js';
import { patientRoutes } from './patients/patient.routes.js';
import { practitionerRoutes } from './practitioners/practitioner.routes.js';
import { carrierRoutes } from './shipping/carrier.routes.js';
import { carrierOperatorRoutes } from './shipping/carrier.operator-routes.js';
import { licensedStatesRoutes } from './shipping/licensed-states.routes.js';
import { clinicOperatorRoutes } from './clinics/clinic.operator-routes.js';
import { medicationOperatorRoutes } from './medications/medication.operator-routes.js';
import { allergyClassOperatorRoutes } from './patients/allergy-classes.operator-routes.js';
import { dashboardOperatorRoutes } from './dashboard/dashboard.operator-routes.js';
import { deprecationOperatorRoutes } from './deprecations/deprecation.operator-routes.js';
import { oauthOperatorRoutes } from './oauth/oauth.operator-routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { smartConfigurationRoutes } from './oauth/smart-configuration.routes.js';
import { webhookOperatorRoutes } from './webhooks/webhook.operator-routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { staffRoutes } from './staff/staff.routes.js';
import { partnerUserOperatorRoutes } from './portal/partner-user.operator-routes.js';
import { portalSessionRoutes } from './portal/portal-session.routes.js';
import { portalKeyRoutes } from './portal/portal-keys.routes.js';
import { portalOverviewRoutes } from './portal/portal-overview.routes.js';
import { portalRequestRoutes } from './portal/portal-requests.routes.js';
import { portalHoldRoutes } from './portal/portal-holds.routes.js';
import { portalOrderRoutes } from './portal/portal-orders.routes.js';
import { portalSandboxRoutes } from './portal/portal-sandbox.routes.js';
import { portalWebhookRoutes } from './portal/portal-webhooks.routes.js';
import { easyPostRoutes } from './shipments/easypost.routes.js';
import { FHIR_BASE_PATH } from './fhir/fhir-base.js';
import { fhirRoutes } from './fhir/fhir.routes.js';
import { FHIR_RESOURCES } from './fhir/fhir-resources.js';

/**
 * Every feature's routes, mounted in one visible list. The rooms of the pharmacy's work (holds,
 * compounding, shipments) answer with the order as partners read it, which is assembled above them:
 * their routes are handed it here (ORDER_ANSWER, fulfillment/order-view.ts).
 */
export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(healthRoutes(ctx));
  await app.register(metricsRoutes(ctx));
  await app.register(practitionerRoutes(ctx));
  await app.register(patientRoutes(ctx));
  await app.register(carrierRoutes(ctx));
  await app.register(licensedStatesRoutes(ctx));
  await app.register(medicationRoutes(ctx));
  await app.register(orderRoutes(ctx));
  await app.register(orderHoldRoutes(ctx, ORDER_ANSWER));
  await app.register(refillRoutes(ctx));
  // Development only: in production the sandbox routes do not exist (404).
  if (ctx.config.env !== 'production') {
    await app.register(sandboxRoutes(ctx));
    await app.register(sandboxHoldRoutes(ctx, ORDER_ANSWER));
  }
  await app.register(orderOperatorRoutes(ctx));
  await app.register(fillOperatorRoutes(ctx, ORDER_ANSWER));
  await app.register(holdOperatorRoutes(ctx, ORDER_ANSWER));
  await app.register(signoffOperatorRoutes(ctx));
  await app.register(shipmentOperatorRoutes(ctx, ORDER_ANSWER));
  await app.register(holdQueueOperatorRoutes(ctx));
  await app.register(recallOperatorRoutes(ctx));
  await app.register(clinicOperatorRoutes(ctx));
  await app.register(medicationOperatorRoutes(ctx));
  await app.register(allergyClassOperatorRoutes(ctx));
  await app.register(oauthOperatorRoutes(ctx));
  // POST /oauth/token: form-encoded, and RFC 6749's errors instead of the envelope (its own plugin context).
  await app.register(oauthRoutes(ctx));
  // SMART discovery for the FHIR API (public): where the token endpoint is and which scopes it grants.
  await app.register(smartConfigurationRoutes(ctx));
  await app.register(carrierOperatorRoutes(ctx));
  await app.register(webhookRoutes(ctx));
  await app.register(webhookOperatorRoutes(ctx));
  await app.register(requestLogRoutes(ctx));
  await app.register(eventLogRoutes(ctx));
  await app.register(auditOperatorRoutes(ctx));
  await app.register(deprecationOperatorRoutes(ctx));
  await app.register(dashboardOperatorRoutes(ctx));
  await app.register(staffRoutes(ctx));
  // POST /api/carrier-events/easypost: EasyPost's signed tracking webhook (its own parser and body limit).
  await app.register(easyPostRoutes(ctx));
  // The FHIR R4 API (docs/fhir.md): its own error handler answers OperationOutcomes.
  await app.register(fhirRoutes(ctx, FHIR_RESOURCES), { prefix: FHIR_BASE_PATH });
  await app.register(partnerUserOperatorRoutes(ctx));
  // The partner portal's API (/api/portal, a portal user's session: docs/portal.md).
  await app.register(portalSessionRoutes(ctx));
  await app.register(portalOverviewRoutes(ctx));
  await app.register(portalKeyRoutes(ctx));
  await app.register(portalRequestRoutes(ctx));
  await app.register(portalWebhookRoutes(ctx));
  await app.register(portalHoldRoutes(ctx));
  await app.register(portalOrderRoutes(ctx));
  // Development only, as the sandbox API: in production the portal's sandbox routes do not exist (404).
  if (ctx.config.env !== 'production') await app.register(portalSandboxRoutes(ctx));
}
