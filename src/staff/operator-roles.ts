import type { StaffRole } from './staff.tables.js';

/**
 * Who may call each route of the operator API (issues 10 and 39; docs/console.md#roles): one table,
 * route → the roles it is open to. `admin` may call every route, as the holder of ADMIN_TOKEN does,
 * so the table names only the others. Every operator route is listed, those for admins alone
 * included (test/staff/operator-roles.test.ts fails on a route missing here, and on docs/console.md's
 * roles table when it differs: `npm run docs:roles` writes it from this one). At run time a route
 * missing from the table is for admins only. Pure: the console asks the same table (which forms to
 * show), without I/O.
 *
 * What a route allows is not all of it: a pharmacist's sign-off is theirs alone, so an admin who may
 * call that route is refused by the service (compounding/signoff.service.ts), and a clinical hold is
 * resolved only by a pharmacist.
 */

/** The roles besides admin a route is open to. */
export type OpenTo = readonly Exclude<StaffRole, 'admin'>[];

const ADMINS: OpenTo = [];
const PHARMACISTS: OpenTo = ['pharmacist'];
const STAFF: OpenTo = ['pharmacist', 'technician'];

/** One operator route: what it does (as the roles table says it) and who besides admins may call it. */
export interface RouteRule {
  readonly what: string;
  readonly openTo: OpenTo;
}

/** The routes by area, in the order docs/console.md's roles table shows them. */
export const OPERATOR_ROUTE_AREAS: readonly { readonly area: string; readonly routes: Readonly<Record<string, RouteRule>> }[] = [
  {
    area: 'Session and account',
    routes: {
      'GET /api/admin/session': { what: 'Who is signed in', openTo: STAFF },
      'DELETE /api/admin/session': { what: 'Sign out', openTo: STAFF },
      'POST /api/admin/account/totp': { what: 'Start turning on two-step sign-in (one’s own)', openTo: STAFF },
      'POST /api/admin/account/totp/confirm': { what: 'Confirm two-step sign-in with a code', openTo: STAFF },
      'DELETE /api/admin/account/totp': { what: 'Turn two-step sign-in off', openTo: STAFF },
    },
  },
  {
    area: 'Orders',
    routes: {
      'GET /api/admin/medication-requests': { what: 'The order queue', openTo: STAFF },
      'GET /api/admin/medication-requests/:id': {
        what: 'An order with its patient, items, fills, sign-offs and shipments (the label prints from it)',
        openTo: STAFF,
      },
      'POST /api/admin/medication-requests/:id/status': {
        what: 'Move an order (processing, shipped, delivered, cancelled)',
        openTo: PHARMACISTS,
      },
      'POST /api/admin/medication-requests/:id/hold': { what: 'Put an order on hold', openTo: PHARMACISTS },
      'POST /api/admin/medication-requests/:id/resume': {
        what: 'Resume a held order (a clinical hold: a pharmacist only)',
        openTo: PHARMACISTS,
      },
      'POST /api/admin/medication-requests/:id/holds/:hold_id/resolve': {
        what: 'Resolve one hold of an order (a clinical hold: a pharmacist only, with an override reason)',
        openTo: PHARMACISTS,
      },
      'GET /api/admin/holds': { what: 'The orders on hold', openTo: STAFF },
      'GET /api/admin/hold-reasons': { what: 'The catalog of hold reasons', openTo: STAFF },
    },
  },
  {
    area: 'Compounding',
    routes: {
      'POST /api/admin/medication-requests/:id/fill': {
        what: 'Record the fill of items (lot, ingredient lots)',
        openTo: STAFF,
      },
      'POST /api/admin/medication-requests/:id/signoffs': {
        what: 'Sign off an order: only a pharmacist, as themselves (an admin is refused with 403)',
        openTo: PHARMACISTS,
      },
      'GET /api/admin/lots/:lot_number/orders': { what: 'The recall of a lot', openTo: STAFF },
    },
  },
  {
    area: 'Shipments',
    routes: {
      'POST /api/admin/medication-requests/:id/shipments': { what: 'Add a package to a shipped order', openTo: STAFF },
      'POST /api/admin/medication-requests/:id/shipments/:shipmentId/events': {
        what: 'Add a tracking event to a package',
        openTo: STAFF,
      },
    },
  },
  {
    area: 'Formularies',
    routes: {
      'GET /api/admin/clinics/:clinicId/medications': { what: 'A clinic’s formulary', openTo: PHARMACISTS },
      'GET /api/admin/clinics/:clinicId/medications/:medicationId/formula-versions': {
        what: 'A formula’s versions',
        openTo: PHARMACISTS,
      },
      'POST /api/admin/clinics/:clinicId/medications': { what: 'Add a formulary entry', openTo: PHARMACISTS },
      'PATCH /api/admin/clinics/:clinicId/medications/:medicationId': {
        what: 'Change a formulary entry',
        openTo: PHARMACISTS,
      },
      'DELETE /api/admin/clinics/:clinicId/medications/:medicationId': {
        what: 'Remove a formulary entry',
        openTo: PHARMACISTS,
      },
      'GET /api/admin/allergy-classes': { what: 'The allergy classes intake compares allergies with', openTo: STAFF },
      'PUT /api/admin/allergy-classes/:code': { what: 'Set an allergy class', openTo: PHARMACISTS },
      'DELETE /api/admin/allergy-classes/:code': { what: 'Remove the operator’s allergy class', openTo: PHARMACISTS },
    },
  },
  {
    area: 'Clinics',
    routes: {
      'GET /api/admin/clinics': { what: 'The clinics (the order queue’s filter names them)', openTo: STAFF },
      'GET /api/admin/clinics/:clinicId': { what: 'A clinic', openTo: PHARMACISTS },
      'POST /api/admin/clinics': { what: 'Create a clinic', openTo: ADMINS },
      'PUT /api/admin/clinics/:clinicId/shipping': { what: 'A clinic’s free shipping', openTo: ADMINS },
      'GET /api/admin/clinics/:clinicId/api-keys': { what: 'A clinic’s API keys', openTo: ADMINS },
      'POST /api/admin/clinics/:clinicId/api-keys': { what: 'Issue an API key', openTo: ADMINS },
      'POST /api/admin/api-keys/:apiKeyId/roll': { what: 'Roll an API key', openTo: ADMINS },
      'DELETE /api/admin/api-keys/:apiKeyId': { what: 'Revoke an API key', openTo: ADMINS },
      'GET /api/admin/clinics/:clinicId/oauth-clients': { what: 'A clinic’s OAuth clients', openTo: ADMINS },
      'POST /api/admin/clinics/:clinicId/oauth-clients': { what: 'Register an OAuth client', openTo: ADMINS },
      'DELETE /api/admin/oauth-clients/:clientId': { what: 'Revoke an OAuth client', openTo: ADMINS },
      'GET /api/admin/clinics/:clinicId/partner-users': { what: 'A clinic’s portal users', openTo: PHARMACISTS },
      'POST /api/admin/clinics/:clinicId/partner-users': { what: 'Invite a portal user', openTo: ADMINS },
      'POST /api/admin/partner-users/:partnerUserId/disable': { what: 'Disable a portal user', openTo: ADMINS },
      'POST /api/admin/partner-users/:partnerUserId/invitation': {
        what: 'A new invitation for a portal user',
        openTo: ADMINS,
      },
    },
  },
  {
    area: 'Carriers and licensed states',
    routes: {
      'GET /api/admin/carriers': { what: 'The carriers and their services', openTo: STAFF },
      'POST /api/admin/carriers': { what: 'Add a carrier', openTo: ADMINS },
      'POST /api/admin/carriers/:carrierId/services': { what: 'Add a service', openTo: ADMINS },
      'PUT /api/admin/carriers/:carrierId/services/:serviceId': { what: 'Change a service and its prices', openTo: ADMINS },
      'GET /api/admin/licensed-states': { what: 'The states the pharmacy may ship to', openTo: ADMINS },
      'PUT /api/admin/licensed-states': { what: 'Set the licensed states', openTo: ADMINS },
    },
  },
  {
    area: 'Webhooks',
    routes: {
      'GET /api/admin/webhook-deliveries': { what: 'The deliveries', openTo: PHARMACISTS },
      'GET /api/admin/webhook-deliveries/:id': { what: 'A delivery and its attempts', openTo: PHARMACISTS },
      'POST /api/admin/webhook-deliveries/:id/retry': { what: 'Retry a delivery', openTo: PHARMACISTS },
      'GET /api/admin/webhook-endpoints': { what: 'The endpoints', openTo: PHARMACISTS },
      'POST /api/admin/webhook-endpoints/:id/enable': { what: 'Re-enable an endpoint', openTo: PHARMACISTS },
      'POST /api/admin/webhook-endpoints/:webhookId/recover': {
        what: 'Send an endpoint’s recent deliveries again',
        openTo: PHARMACISTS,
      },
    },
  },
  {
    area: 'Oversight',
    routes: {
      'GET /api/admin/dashboard': { what: 'The dashboard', openTo: PHARMACISTS },
      'GET /api/admin/audit-events': { what: 'The audit trail', openTo: PHARMACISTS },
      'GET /api/admin/deprecations': { what: 'Who still uses a deprecated thing', openTo: ADMINS },
      'GET /metrics': { what: 'Prometheus metrics', openTo: ADMINS },
    },
  },
  {
    area: 'Staff',
    routes: {
      'GET /api/admin/staff': { what: 'The staff accounts', openTo: ADMINS },
      'POST /api/admin/staff': { what: 'Create a staff account', openTo: ADMINS },
      'POST /api/admin/staff/:staffId/disable': { what: 'Disable a staff account', openTo: ADMINS },
    },
  },
];

const TABLE: ReadonlyMap<string, RouteRule> = new Map(OPERATOR_ROUTE_AREAS.flatMap(({ routes }) => Object.entries(routes)));

/** Every route of the table, as `METHOD /pattern` (for tests and docs). */
export const operatorRoutes = (): readonly string[] => [...TABLE.keys()];

/** The routes `role` may call, as `METHOD /pattern`. */
export const routesOf = (role: StaffRole): readonly string[] =>
  [...TABLE.keys()].filter((route) => role === 'admin' || TABLE.get(route)?.openTo.includes(role));

/** The roles that may call the route `method pattern`: admin first, then those the table names (admin alone for an unlisted route). */
export function rolesFor(method: string, pattern: string): readonly StaffRole[] {
  return ['admin', ...(TABLE.get(`${method === 'HEAD' ? 'GET' : method} ${pattern}`)?.openTo ?? [])];
}

/** Whether `role` may call the route `method pattern` (HEAD is GET's twin). */
export function roleMayCall(role: StaffRole, method: string, pattern: string): boolean {
  return rolesFor(method, pattern).includes(role);
}
