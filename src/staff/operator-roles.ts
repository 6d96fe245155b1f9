import type { StaffRole } from './staff.tables.js';

/**
 * What each staff role may call on the operator API (issue 10; docs/console.md). `admin` may call
 * everything, as the holder of ADMIN_TOKEN does. `pharmacist` may work the order queue and its
 * transitions, formularies, webhook deliveries and their retries, and read clinics, carriers, the
 * audit trail and the dashboard; not staff, API keys, clinics' settings, carriers or prices. A route
 * missing from this list is for admins only, so a new route is closed to pharmacists until someone
 * opens it here.
 */
const PHARMACIST_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/admin/session',
  'DELETE /api/admin/session',
  'GET /api/admin/medication-requests',
  'GET /api/admin/medication-requests/:id',
  'POST /api/admin/medication-requests/:id/status',
  'POST /api/admin/medication-requests/:id/hold',
  'POST /api/admin/medication-requests/:id/resume',
  // The fill (issue 30): the pharmacist records what was compounded.
  'POST /api/admin/medication-requests/:id/fill',
  // The pharmacist's sign-offs (issue 30): a pharmacist signs as themselves.
  'POST /api/admin/medication-requests/:id/signoffs',
  // The Holds view (issue 29).
  'GET /api/admin/holds',
  'GET /api/admin/hold-reasons',
  // The Recall page (issue 30, item 4).
  'GET /api/admin/lots/:lot_number/orders',
  'GET /api/admin/clinics',
  'GET /api/admin/clinics/:clinicId',
  'GET /api/admin/clinics/:clinicId/medications',
  'GET /api/admin/clinics/:clinicId/medications/:medicationId/formula-versions',
  'POST /api/admin/clinics/:clinicId/medications',
  'PATCH /api/admin/clinics/:clinicId/medications/:medicationId',
  'DELETE /api/admin/clinics/:clinicId/medications/:medicationId',
  'GET /api/admin/carriers',
  'GET /api/admin/webhook-deliveries',
  'GET /api/admin/webhook-deliveries/:id',
  'POST /api/admin/webhook-deliveries/:id/retry',
  'GET /api/admin/webhook-endpoints',
  'POST /api/admin/webhook-endpoints/:id/enable',
  'POST /api/admin/webhook-endpoints/:webhookId/recover',
  'GET /api/admin/audit-events',
  'GET /api/admin/dashboard',
  'GET /api/admin/clinics/:clinicId/partner-users',
  // Every staff member's own second factor.
  'POST /api/admin/account/totp',
  'POST /api/admin/account/totp/confirm',
  'DELETE /api/admin/account/totp',
]);

/** The routes a pharmacist may call, as `METHOD /pattern` (for tests and docs). */
export const pharmacistRoutes = (): readonly string[] => [...PHARMACIST_ROUTES];

/** Whether `role` may call the route `method pattern` (HEAD is GET's twin). */
export function roleMayCall(role: StaffRole, method: string, pattern: string): boolean {
  if (role === 'admin') return true;
  return PHARMACIST_ROUTES.has(`${method === 'HEAD' ? 'GET' : method} ${pattern}`);
}
