import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { auditAdminRoutes } from './audit/audit.admin-routes.js';
import { healthRoutes } from './health/health.routes.js';
import { metricsRoutes } from './health/metrics.routes.js';
import { orderAdminRoutes } from './orders/order.admin-routes.js';
import { orderRoutes } from './orders/order.routes.js';
import { refillRoutes } from './refills/refill.routes.js';
import { requestLogRoutes } from './request-log/request-log.routes.js';
import { sandboxRoutes } from './orders/sandbox.routes.js';
import { medicationRoutes } from './medications/medication.routes.js';
import { patientRoutes } from './patients/patient.routes.js';
import { practitionerRoutes } from './practitioners/practitioner.routes.js';
import { carrierRoutes } from './shipping/carrier.routes.js';
import { carrierAdminRoutes } from './shipping/carrier.admin-routes.js';
import { clinicAdminRoutes } from './clinics/clinic.admin-routes.js';
import { dashboardAdminRoutes } from './dashboard/dashboard.admin-routes.js';
import { deprecationAdminRoutes } from './deprecations/deprecation.admin-routes.js';
import { oauthAdminRoutes } from './oauth/oauth.admin-routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { webhookAdminRoutes } from './webhooks/webhook.admin-routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { staffRoutes } from './staff/staff.routes.js';
import { partnerUserAdminRoutes } from './portal/partner-user.admin-routes.js';
import { portalSessionRoutes } from './portal/portal-session.routes.js';
import { portalKeyRoutes } from './portal/portal-keys.routes.js';
import { portalOverviewRoutes } from './portal/portal-overview.routes.js';
import { portalRequestRoutes } from './portal/portal-requests.routes.js';
import { portalSandboxRoutes } from './portal/portal-sandbox.routes.js';
import { portalWebhookRoutes } from './portal/portal-webhooks.routes.js';

/** Every feature's routes, mounted in one visible list. */
export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(healthRoutes(ctx));
  await app.register(metricsRoutes(ctx));
  await app.register(practitionerRoutes(ctx));
  await app.register(patientRoutes(ctx));
  await app.register(carrierRoutes(ctx));
  await app.register(medicationRoutes(ctx));
  await app.register(orderRoutes(ctx));
  await app.register(refillRoutes(ctx));
  // Development only: in production the sandbox routes do not exist (404).
  if (ctx.config.env !== 'production') await app.register(sandboxRoutes(ctx));
  await app.register(orderAdminRoutes(ctx));
  await app.register(clinicAdminRoutes(ctx));
  await app.register(oauthAdminRoutes(ctx));
  // POST /oauth/token: form-encoded, and RFC 6749's errors instead of the envelope (its own plugin context).
  await app.register(oauthRoutes(ctx));
  await app.register(carrierAdminRoutes(ctx));
  await app.register(webhookRoutes(ctx));
  await app.register(webhookAdminRoutes(ctx));
  await app.register(requestLogRoutes(ctx));
  await app.register(auditAdminRoutes(ctx));
  await app.register(deprecationAdminRoutes(ctx));
  await app.register(dashboardAdminRoutes(ctx));
  await app.register(staffRoutes(ctx));
  await app.register(partnerUserAdminRoutes(ctx));
  // The partner portal's API (/api/portal, a portal user's session: docs/portal.md).
  await app.register(portalSessionRoutes(ctx));
  await app.register(portalOverviewRoutes(ctx));
  await app.register(portalKeyRoutes(ctx));
  await app.register(portalRequestRoutes(ctx));
  await app.register(portalWebhookRoutes(ctx));
  // Development only, as the sandbox API: in production the portal's sandbox routes do not exist (404).
  if (ctx.config.env !== 'production') await app.register(portalSandboxRoutes(ctx));
}
