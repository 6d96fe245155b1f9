import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorRoutes, roleMayCall, rolesFor, routesOf } from '../../src/staff/operator-roles.js';
import { ROLES_BEGIN_MARKER, ROLES_PAGE, rolesSection, withRolesSection } from '../../src/staff/roles-docs.js';
import { TestApp } from '../helpers/test-app.js';

/**
 * The one table of who may call each operator route (src/staff/operator-roles.ts; issue 39, item 4)
 * and docs/console.md's roles table written from it. The routes are the application's, whatever the
 * database: this file builds one on SQLite only, as it reads no data.
 */
const PAGE = path.resolve(import.meta.dirname, '../..', ROLES_PAGE);

describe('docs/console.md’s roles table, generated from the table', () => {
  it('when the page is read, then its roles table is exactly what the table writes (else: npm run docs:roles)', () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(page).toContain(ROLES_BEGIN_MARKER);
    expect(page, `${ROLES_PAGE} is stale: run npm run docs:roles`).toBe(withRolesSection(page));
    for (const route of operatorRoutes()) expect(page).toContain(`| \`${route}\` |`);
  });

  it('when an area is written, then each route has its line, with yes for each role besides admin that may call it', () => {
    const section = rolesSection([
      {
        area: 'Example',
        routes: {
          'GET /api/admin/example': { what: 'Read | list', openTo: ['pharmacist', 'technician'] },
          'POST /api/admin/example': { what: 'Change', openTo: [] },
        },
      },
    ]);
    expect(section).toContain('| **Example** | Read \\| list | `GET /api/admin/example` | yes | yes |');
    expect(section).toContain('|  | Change | `POST /api/admin/example` | — | — |');
  });
});

describe('the table of who may call what', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
  });
  afterAll(async () => t.close());

  it('when the application is built, then every operator route is in the table and every route of the table exists', () => {
    const registered = new Set(
      t.app
        .registeredRoutes()
        .filter((r) => r.method !== 'HEAD' && (r.url.startsWith('/api/admin/') || r.url === '/metrics'))
        .map((r) => `${r.method} ${r.url}`),
    );
    // Signing in needs no credentials: the guard lets it through before any role is known.
    registered.delete('POST /api/admin/session');
    expect(
      [...registered].filter((route) => !operatorRoutes().includes(route)),
      'routes missing from the table',
    ).toEqual([]);
    expect(
      operatorRoutes().filter((route) => !registered.has(route)),
      'routes of the table the API does not have',
    ).toEqual([]);
  });

  it('when a technician asks, then fills, shipments, tracking events and reads are open, and sign-offs, moves, holds, formularies, staff and the audit trail are not', () => {
    for (const route of [
      'GET /api/admin/medication-requests',
      'GET /api/admin/medication-requests/:id',
      'POST /api/admin/medication-requests/:id/fill',
      'POST /api/admin/medication-requests/:id/shipments',
      'POST /api/admin/medication-requests/:id/shipments/:shipmentId/events',
      'GET /api/admin/holds',
      'GET /api/admin/lots/:lot_number/orders',
    ]) {
      expect(routesOf('technician'), route).toContain(route);
    }
    for (const route of [
      'POST /api/admin/medication-requests/:id/signoffs',
      'POST /api/admin/medication-requests/:id/status',
      'POST /api/admin/medication-requests/:id/resume',
      'POST /api/admin/clinics/:clinicId/medications',
      'PATCH /api/admin/clinics/:clinicId/medications/:medicationId',
      'POST /api/admin/staff',
      'GET /api/admin/audit-events',
    ]) {
      expect(routesOf('technician'), route).not.toContain(route);
    }
  });

  it('when a pharmacist asks, then shipments and tracking events are theirs to add (issue 39), and staff are not', () => {
    expect(roleMayCall('pharmacist', 'POST', '/api/admin/medication-requests/:id/shipments')).toBe(true);
    expect(roleMayCall('pharmacist', 'POST', '/api/admin/medication-requests/:id/shipments/:shipmentId/events')).toBe(true);
    expect(roleMayCall('pharmacist', 'POST', '/api/admin/staff')).toBe(false);
  });

  it('when a route is not in the table, then only an admin may call it; HEAD follows GET', () => {
    expect(rolesFor('POST', '/api/admin/not-yet-listed')).toEqual(['admin']);
    expect(roleMayCall('admin', 'DELETE', '/api/admin/anything')).toBe(true);
    expect(roleMayCall('technician', 'HEAD', '/api/admin/medication-requests')).toBe(true);
    expect(routesOf('admin')).toEqual(operatorRoutes());
  });
});
