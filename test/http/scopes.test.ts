import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { ALL_SCOPES, SCOPE_RESOURCES, type Scope, type ScopeResource } from '../../src/clinics/scopes.js';
import { AppError } from '../../src/errors.js';
import { assertScope, requiredScopeOf } from '../../src/http/scope-guard.js';
import type { RegisteredRoute } from '../../src/http/routes-index.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** An id no row has: a route given it answers 404 (or 400), never with data. */
const NO_ROW = '00000000-0000-4000-8000-000000000000';

/** A partner route, addressed: its path with every parameter filled in. */
interface PartnerRoute {
  method: string;
  url: string;
  path: string;
  scope: Scope;
}

/** Fastify's `/carriers/:carrierId/services` → `/carriers/usps/services` (an id of no row elsewhere). */
const addressed = (url: string): string =>
  url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => (name === 'carrierId' ? 'usps' : NO_ROW));

function partnerRoutes(routes: RegisteredRoute[]): PartnerRoute[] {
  return routes
    .filter((route) => route.method !== 'HEAD' && route.url.startsWith('/api/external/'))
    .map((route) => {
      const scope = requiredScopeOf(route.schema);
      if (!scope) throw new Error(`${route.method} ${route.url} declares no 'x-required-scope'`);
      return { method: route.method, url: route.url, path: addressed(route.url), scope };
    });
}

const resourceOf = (scope: Scope): ScopeResource => scope.split(':')[0] as ScopeResource;
/** A scope of another resource than `scope`'s. */
const otherThan = (scope: Scope): Scope => (resourceOf(scope) === 'carriers' ? 'formulary:read' : 'carriers:read');

describe.each(DIALECTS)('restricted API keys (scopes) on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let routes: PartnerRoute[];
  /** A key of `clinic` restricted to `scopes`, issued once per list. */
  const keys = new Map<string, string>();
  const keyWith = async (...scopes: Scope[]): Promise<string> => {
    const name = scopes.join(',');
    let key = keys.get(name);
    if (key === undefined) {
      key = (await issueApiKey(t.ctx, clinic.clinicId, null, undefined, { scopes })).api_key;
      keys.set(name, key);
    }
    return key;
  };
  /** A request with an empty JSON body where the method takes one: an allowed key gets its 400 or 404. */
  const send = (key: string, route: PartnerRoute) => {
    const partner = t.partner(key);
    return route.method === 'GET' ? partner.get(route.path) : partner[route.method.toLowerCase() as 'post'](route.path, {});
  };

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinic = await t.createClinic({ formulary: ['Semaglutide'] });
    routes = partnerRoutes(t.app.registeredRoutes());
  });
  afterAll(async () => t.close());

  it('when the partner routes are listed, then each declares one scope, and the map covers every resource of the vocabulary but carriers:write and formulary:write', () => {
    const declared = new Set(routes.map((route) => route.scope));
    expect([...declared].sort()).toEqual(
      ALL_SCOPES.filter((scope) => scope !== 'carriers:write' && scope !== 'formulary:write').sort(),
    );
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  it('when the OpenAPI document is read, then every partner operation names its scope: the x-required-scope extension, a line of its description and its 403', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    for (const route of routes) {
      const where = `${route.method} ${route.url}`;
      const op = doc.paths[route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[route.method.toLowerCase()];
      expect([where, op?.['x-required-scope']]).toEqual([where, route.scope]);
      expect([where, op.description]).toEqual([where, expect.stringContaining(`**Scope:** \`${route.scope}\``)]);
      expect([where, op.responses['403']?.description]).toEqual([
        where,
        expect.stringContaining(`Forbidden: this API key lacks the scope ${route.scope}`),
      ]);
    }
  });

  it('when a key without the resource of a route calls it, then 403 FORBIDDEN names the scope it lacks, on every partner route', async () => {
    for (const route of routes) {
      const res = await send(await keyWith(otherThan(route.scope)), route);
      expect({ route: `${route.method} ${route.url}`, status: res.status, body: res.body }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 403,
        body: {
          success: false,
          error: {
            code: 'FORBIDDEN',
            message: `Forbidden: this API key lacks the scope ${route.scope}`,
            request_id: expect.any(String),
          },
        },
      });
    }
  });

  it('when a read-only key calls a route that writes, then 403 names the write scope, on every writing route', async () => {
    const writes = routes.filter((route) => route.scope.endsWith(':write'));
    expect(writes.length).toBeGreaterThan(0);
    for (const route of writes) {
      const res = await send(await keyWith(`${resourceOf(route.scope)}:read`), route);
      expect([`${route.method} ${route.url}`, res.status, res.body.error?.message]).toEqual([
        `${route.method} ${route.url}`,
        403,
        `Forbidden: this API key lacks the scope ${route.scope}`,
      ]);
    }
  });

  it('when a key holds the write scope of a resource, then every route of that resource, reads included, passes the scope check', async () => {
    for (const route of routes) {
      const res = await send(await keyWith(`${resourceOf(route.scope)}:write`), route);
      // Past the check: the route's own answer (200, or 400/404 for the empty body and unknown ids), never 403 or a 5xx.
      expect([`${route.method} ${route.url}`, res.status !== 403 && res.status < 500]).toEqual([
        `${route.method} ${route.url}`,
        true,
      ]);
    }
  });

  it('when a key issued without scopes calls every partner route, then none is refused for scope (full access, as before)', async () => {
    for (const route of routes) {
      const res = await send(clinic.apiKey, route);
      expect([`${route.method} ${route.url}`, res.status !== 403 && res.status < 500]).toEqual([
        `${route.method} ${route.url}`,
        true,
      ]);
    }
  });

  it('when a key holds the exact scope of a read, then it reads: carriers:read lists carriers, formulary:read the formulary', async () => {
    const carriers = await t.partner(await keyWith('carriers:read')).get('/api/external/carriers');
    expect(carriers.status).toBe(200);
    const formulary = await t.partner(await keyWith('formulary:read', 'orders:write')).get('/api/external/medications');
    expect(formulary.status).toBe(200);
    expect(formulary.body.data.items).toEqual([expect.objectContaining({ name: 'Semaglutide' })]);
  });

  it('when an out-of-scope key sends a malformed or invalid body, then the scope is refused first (403, not 400)', async () => {
    const key = await keyWith('orders:read');
    const malformed = await t.request('POST', '/api/external/medication-order', {
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json' },
      payload: '{"clinic_id": ',
    });
    expect(malformed.status).toBe(403);
    expect(malformed.body.error.message).toBe('Forbidden: this API key lacks the scope orders:write');
    const invalid = await t.partner(key).post('/api/external/medication-order', { clinic_id: 'not a uuid' });
    expect(invalid.status).toBe(403);
  });

  it('when an out-of-scope key posts with an Idempotency-Key, then 403 and the Idempotency-Key is not claimed', async () => {
    const refused = await t.request('POST', '/api/external/patient', {
      headers: {
        'x-api-key': await keyWith('patients:read'),
        'content-type': 'application/json',
        accept: 'application/json',
        'idempotency-key': 'scope-refused-1',
      },
      body: {},
    });
    expect(refused.status).toBe(403);
    const rows = await t.ctx.db
      .selectFrom('idempotency_keys')
      .select('idempotency_key')
      .where('idempotency_key', '=', 'scope-refused-1')
      .execute();
    expect(rows).toEqual([]);
  });

  it('when a restricted key asks for an unknown route, then it gets the 404 of any unknown route, not a 403', async () => {
    const res = await t.partner(await keyWith('orders:read')).get('/api/external/no-such-route');
    expect(res.status).toBe(404);
  });
});

describe('the scope check itself (http/scope-guard.ts)', () => {
  const request = (schema: object | undefined, url: string | undefined = '/api/external/x') =>
    ({ routeOptions: { url, schema } }) as unknown as FastifyRequest;

  it('when the identity is an OAuth client without the scope, then 403 names the access token and the scope', () => {
    const refused = (() => {
      try {
        assertScope(request({ 'x-required-scope': 'refills:write' }), {
          clinicId: NO_ROW,
          oauthClientId: NO_ROW,
          scopes: ['refills:read'],
        });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
      message: 'Forbidden: this access token lacks the scope refills:write',
    });
  });

  it('when a route declares no scope, then a restricted credential is refused and a full one passes', () => {
    expect(() => assertScope(request({}), { clinicId: NO_ROW, apiKeyId: NO_ROW, scopes: ['orders:write'] })).toThrow(
      'Forbidden: this route is not open to a restricted API key',
    );
    expect(() => assertScope(request({}), { clinicId: NO_ROW, apiKeyId: NO_ROW, scopes: null })).not.toThrow();
    expect(() => assertScope(request({}), { clinicId: NO_ROW, apiKeyId: NO_ROW })).not.toThrow();
  });

  it.each(SCOPE_RESOURCES.map((resource) => [resource]))(
    'when a key holds %s:write, then it may read and write it and nothing else',
    (resource) => {
      const identity = { clinicId: NO_ROW, apiKeyId: NO_ROW, scopes: [`${resource}:write` as Scope] };
      for (const scope of ALL_SCOPES) {
        const passes = (() => {
          try {
            assertScope(request({ 'x-required-scope': scope }), identity);
            return true;
          } catch {
            return false;
          }
        })();
        expect([scope, passes]).toEqual([scope, scope.startsWith(`${resource}:`)]);
      }
    },
  );
});
