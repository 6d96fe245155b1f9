import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorDocument, partnerDocument, portalDocument } from '../../src/openapi.js';
import { TestApp } from '../helpers/test-app.js';

/** Every `$ref` anywhere in a document. */
function refsOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => refsOf(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsOf(value, found);
    }
  }
  return found;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const answer = (name: string) => ({ responses: { '200': { content: { 'application/json': { schema: ref(name) } } } } });

/** A document of each API, as @fastify/swagger writes it (the portal's routes may not exist yet in the app). */
const WHOLE = {
  openapi: '3.1.0',
  paths: {
    '/api/external/patient': { post: { tags: ['Patients'], security: [{ apiKey: [] }], ...answer('Patient') } },
    '/api/admin/clinics': {
      get: { tags: ['Operator'], security: [{ operatorToken: [] }, { consoleSession: [] }], ...answer('Clinic') },
    },
    '/api/portal/keys': { get: { tags: ['Portal'], security: [{ portalSession: [] }], ...answer('PortalKeys') } },
    '/api/portal/session': { post: { tags: ['Portal'], security: [], ...answer('PortalSession') } },
    // Outside the prefix but behind the portal's session: the portal's all the same.
    '/portal-only': { get: { security: [{ portalSession: [] }] } },
    '/healthz': { get: { tags: ['Health'], security: [] } },
  },
  webhooks: {
    'order.created': { post: { requestBody: { content: { 'application/json': { schema: ref('OrderCreatedEvent') } } } } },
  },
  tags: ['Patients', 'Operator', 'Portal', 'Health'].map((name) => ({ name })),
  components: {
    schemas: {
      Patient: { type: 'object' },
      Clinic: { type: 'object', properties: { contact: ref('Contact') } },
      Contact: { type: 'object' },
      PortalKeys: { type: 'object', properties: { items: { type: 'array', items: ref('ApiKey') } } },
      ApiKey: { type: 'object' },
      PortalSession: { type: 'object' },
      OrderCreatedEvent: { type: 'object' },
    },
    securitySchemes: Object.fromEntries(
      ['apiKey', 'oauth2', 'operatorToken', 'consoleSession', 'portalSession'].map((name) => [name, { type: 'apiKey' }]),
    ),
  },
};

interface Part {
  paths: Record<string, unknown>;
  tags?: { name: string }[];
  webhooks?: unknown;
  components: { schemas?: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}
const part = (document: Record<string, unknown>) => document as unknown as Part;
const tagNames = (document: Part) => document.tags?.map((tag) => tag.name);

describe('the OpenAPI document cut by API: partner, operator, portal (src/openapi.ts)', () => {
  it('when the partner document is cut, then it holds no operator or portal path, tag or security scheme', () => {
    const partner = part(partnerDocument(WHOLE));
    expect(Object.keys(partner.paths)).toEqual(['/api/external/patient', '/healthz']);
    expect(tagNames(partner)).toEqual(['Patients', 'Health']);
    expect(Object.keys(partner.components.securitySchemes)).toEqual(['apiKey', 'oauth2']);
    expect(partner.webhooks).toEqual(WHOLE.webhooks);
  });

  it('when the operator document is cut, then it holds the paths under /api/admin with only the schemas, tags and schemes they use', () => {
    const operator = part(operatorDocument(WHOLE));
    expect(Object.keys(operator.paths)).toEqual(['/api/admin/clinics']);
    // Named schemas are followed through their own references (Clinic → Contact).
    expect(Object.keys(operator.components.schemas ?? {}).sort()).toEqual(['Clinic', 'Contact']);
    expect(tagNames(operator)).toEqual(['Operator']);
    expect(Object.keys(operator.components.securitySchemes)).toEqual(['operatorToken', 'consoleSession']);
    expect(operator).not.toHaveProperty('webhooks');
  });

  it('when the portal document is cut, then it holds the paths under /api/portal with only what they use', () => {
    const portal = part(portalDocument(WHOLE));
    expect(Object.keys(portal.paths)).toEqual(['/api/portal/keys', '/api/portal/session']);
    expect(Object.keys(portal.components.schemas ?? {}).sort()).toEqual(['ApiKey', 'PortalKeys', 'PortalSession']);
    expect(tagNames(portal)).toEqual(['Portal']);
    expect(Object.keys(portal.components.securitySchemes)).toEqual(['portalSession']);
    expect(portal).not.toHaveProperty('webhooks');
  });

  describe('of the app', () => {
    let t: TestApp;
    let whole: Record<string, unknown>;
    beforeAll(async () => {
      t = await TestApp.start({ dialect: 'sqlite' });
      whole = t.app.swagger() as unknown as Record<string, unknown>;
    });
    afterAll(async () => t.close());

    const resolves = (document: Part) =>
      refsOf(document).filter((target) => {
        const name = /^#\/components\/schemas\/(.+)$/.exec(target)?.[1];
        return name === undefined || !(name in (document.components.schemas ?? {}));
      });

    it('when the partner document is read, then no path is under /api/portal or /api/admin, and the portal session is not a scheme', () => {
      const partner = part(partnerDocument(whole));
      expect(Object.keys(partner.paths)).toContain('/api/external/medication-order');
      expect(Object.keys(partner.paths).filter((path) => /^\/api\/(portal|admin)(\/|$)/.test(path))).toEqual([]);
      expect(Object.keys(partner.components.securitySchemes)).not.toContain('portalSession');
      expect(tagNames(partner)).not.toContain('Portal');
      // The whole document has the portal's scheme for its routes.
      expect(Object.keys(part(whole).components.securitySchemes)).toContain('portalSession');
    });

    it('when the operator document is read, then it is every operator route and nothing else, and each of its references resolves', () => {
      const operator = part(operatorDocument(whole));
      const operatorRoutes = new Set(
        t.app
          .registeredRoutes()
          .filter((route) => route.method !== 'HEAD' && route.url.startsWith('/api/admin/') && !route.schema?.hide)
          .map((route) => route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')),
      );
      expect(new Set(Object.keys(operator.paths))).toEqual(operatorRoutes);
      expect(resolves(operator)).toEqual([]);
      expect(Object.keys(operator.components.securitySchemes)).toEqual(['operatorToken', 'consoleSession']);
    });

    it('when the portal document is read, then every path is under /api/portal and each of its references resolves', () => {
      const portal = part(portalDocument(whole));
      expect(Object.keys(portal.paths).filter((path) => !path.startsWith('/api/portal/'))).toEqual([]);
      expect(resolves(portal)).toEqual([]);
      expect(Object.keys(portal.components.securitySchemes)).toEqual(['portalSession']);
    });
  });
});
