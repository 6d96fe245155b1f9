import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { CURRENT_API_VERSION } from '../../src/http/api-version.js';
import { TestApp } from '../helpers/test-app.js';

const ERROR_REF = '#/components/schemas/ErrorEnvelope';

/** Fastify's `/carriers/:carrierId/services` is OpenAPI's `/carriers/{carrierId}/services`. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Follows a local `#/a/b` JSON pointer through the document. */
function resolvePointer(doc: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined),
      doc,
    );
}

/** Every `$ref` anywhere in the document. */
function collectRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => collectRefs(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else collectRefs(value, found);
    }
  }
  return found;
}

/** An error response documented as the ErrorEnvelope (directly or through a reference). */
function errorSchemaOf(op: any, status: string): unknown {
  return op.responses?.[status]?.content?.['application/json']?.schema;
}

// The document is generated from the route schemas; the database plays no part.
describe('OpenAPI document and reference page', () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => t.close());

  /** A schema, or the component its `$ref` names. */
  const deref = (schema: any) => (typeof schema?.$ref === 'string' ? resolvePointer(doc, schema.$ref) : schema);

  const routesUnder = (prefix: string) =>
    t.app.registeredRoutes().filter((r) => r.method !== 'HEAD' && (r.url === prefix || r.url.startsWith(`${prefix}/`)));

  it('when /openapi.json is fetched, then it is an OpenAPI 3.1 document of the current API version (1.5.0), without a key', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.5.0');
    expect(doc.info.version).toBe(CURRENT_API_VERSION);
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.components.securitySchemes.apiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
    );
  });

  it('when the ErrorEnvelope component is read, then it is the spec\u2019s error envelope', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope).toBeDefined();
    // @fastify/swagger writes `const` as a one-value `enum` for older tools.
    expect([envelope.properties.success.const, envelope.properties.success.enum?.[0]]).toContain(false);
    expect(envelope.properties.error.required).toEqual(expect.arrayContaining(['message', 'code', 'request_id']));
    expect(Object.keys(envelope.properties.error.properties)).toEqual(
      expect.arrayContaining(['message', 'code', 'details', 'request_id', 'retry_after']),
    );
  });

  it('when error.code of the ErrorEnvelope is read, then it is the enum of every code the server sends, each in docs/errors.md', async () => {
    const code = doc.components.schemas.ErrorEnvelope.properties.error.properties.code;
    expect(code.type).toBe('string');
    expect(code.enum).toEqual([...ERROR_CODES]);
    const errorsPage = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    for (const name of ERROR_CODES) expect(errorsPage, name).toContain(`| \`${name}\` |`);
  });

  it('when the request and response bodies are read, then each resource is a named component', () => {
    const schemaOf = (path: string, method: string, status?: string) => {
      const op = doc.paths[path][method];
      return status ? op.responses[status].content['application/json'].schema : op.requestBody.content['application/json'].schema;
    };
    const data = (path: string, method: string) => deref(schemaOf(path, method, '200')).properties.data;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    expect(schemaOf('/api/external/practitioner', 'post')).toEqual(ref('PractitionerCreateRequest'));
    expect(data('/api/external/practitioner/{practitionerId}', 'get')).toEqual(ref('Practitioner'));
    expect(schemaOf('/api/external/patient', 'post')).toEqual(ref('PatientCreateRequest'));
    expect(data('/api/external/patient/{patientId}', 'get')).toEqual(ref('Patient'));
    expect(schemaOf('/api/external/medication-order', 'post')).toEqual(ref('MedicationOrderCreateRequest'));
    expect(data('/api/external/medication-order/{id}', 'get')).toEqual(ref('MedicationOrder'));
    expect(schemaOf('/api/external/refill-request', 'post')).toEqual(ref('RefillRequestCreateRequest'));
    expect(data('/api/external/refill-request/{id}', 'get')).toEqual(ref('RefillRequest'));
    expect(schemaOf('/api/external/webhook', 'post')).toEqual(ref('WebhookCreateRequest'));
    for (const name of ['Practitioner', 'Patient', 'MedicationOrder', 'RefillRequest', 'Webhook', 'ErrorEnvelope']) {
      expect(doc.components.schemas[name]?.type, name).toBe('object');
    }
    // Every partner request body is named.
    for (const route of routesUnder('/api/external').filter((r) => r.schema?.body)) {
      const body = schemaOf(toOpenApiPath(route.url), route.method.toLowerCase());
      expect(body.$ref, `${route.method} ${route.url}`).toMatch(/^#\/components\/schemas\/[A-Z][A-Za-z]+$/);
    }
  });

  it('when the webhooks section is read, then each event has its signed request: the Standard Webhooks headers and a named body', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(
      [
        'order.cancelled',
        'order.created',
        'order.delivered',
        'order.fulfilled',
        'order.on_hold',
        'order.resumed',
        'refill.ready',
        'shipment.updated',
        'webhook.test',
      ].sort(),
    );
    for (const [type, item] of Object.entries<any>(doc.webhooks)) {
      const headers = item.post.parameters.filter((p: any) => p.in === 'header' && p.required);
      expect(
        headers.map((p: any) => p.name),
        type,
      ).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      const body = deref(item.post.requestBody.content['application/json'].schema);
      expect(Object.keys(body.properties), type).toEqual(['type', 'timestamp', 'data']);
      expect(body.properties.type.const, type).toBe(type);
      expect(body.properties.data.type, type).toBe('object');
    }
  });

  it('when any $ref of the document is followed, then it resolves', () => {
    const refs = collectRefs(doc);
    expect(refs).toContain(ERROR_REF);
    for (const ref of refs) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      expect(resolvePointer(doc, ref), ref).toBeDefined();
    }
  });

  it('when every documented route is looked up, then it has a camelCase operationId of its own', () => {
    const seen = new Map<string, string>();
    for (const route of t.app.registeredRoutes().filter((r) => r.method !== 'HEAD' && !r.schema?.hide)) {
      const where = `${route.method} ${route.url}`;
      const op = doc.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(op, `${where} is missing from /openapi.json`).toBeDefined();
      expect(op.operationId, `${where} operationId`).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(seen.get(op.operationId), `${where} shares its operationId`).toBeUndefined();
      seen.set(op.operationId, where);
    }
    // The names code generators turn into methods stay as published.
    expect(doc.paths['/api/external/practitioner'].post.operationId).toBe('createPractitioner');
    expect(doc.paths['/api/external/medication-order/{id}'].get.operationId).toBe('getMedicationOrder');
    expect(doc.paths['/api/admin/medication-requests'].get.operationId).toBe('listOperatorMedicationRequests');
  });

  it('when the partner routes of issue 2 are looked for, then they are registered and documented', () => {
    const registered = routesUnder('/api/external').map((r) => `${r.method} ${r.url}`);
    expect(registered).toEqual(
      expect.arrayContaining([
        'POST /api/external/practitioner',
        'POST /api/external/patient',
        'GET /api/external/carriers',
        expect.stringMatching(/^GET \/api\/external\/carriers\/:[A-Za-z]+\/services$/),
      ]),
    );
  });

  it('when every route under /api/external is looked up in the document, then each has its summary, key, request and responses', () => {
    const routes = routesUnder('/api/external');
    expect(routes.length).toBeGreaterThanOrEqual(4);
    for (const route of routes) {
      const where = `${route.method} ${route.url}`;
      const op = doc.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(op, `${where} is missing from /openapi.json`).toBeDefined();
      expect(op.summary, `${where} summary`).toEqual(expect.any(String));
      expect(op.tags?.length, `${where} tags`).toBeGreaterThan(0);
      // The key, or an OAuth access token with the route's scope (issue 20).
      expect(op.security, `${where} security`).toEqual([{ apiKey: [] }, { oauth2: [route.schema?.['x-required-scope']] }]);

      const schema = route.schema ?? {};
      if (schema.body) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        expect(body, `${where} request body`).toBeDefined();
        expect(body.type === 'object' || typeof body.$ref === 'string', `${where} request body is an object`).toBe(true);
      }
      for (const part of ['querystring', 'params'] as const) {
        if (!schema[part]) continue;
        const where2 = part === 'params' ? 'path' : 'query';
        const names = Object.keys((schema[part] as { properties?: object }).properties ?? {});
        for (const name of names) {
          expect(
            op.parameters?.some((p: any) => p.in === where2 && p.name === name),
            `${where} ${where2} parameter ${name}`,
          ).toBe(true);
        }
      }

      const ok = deref(op.responses?.['200']?.content?.['application/json']?.schema);
      expect(ok, `${where} 200 response schema`).toBeDefined();
      expect(ok.properties?.success, `${where} 200 is the success envelope`).toBeDefined();
      expect(ok.properties?.data, `${where} 200 has data`).toBeDefined();

      const statuses = ['401', '429'];
      if (schema.body || schema.querystring || schema.params) statuses.push('400');
      for (const status of statuses) {
        expect(errorSchemaOf(op, status), `${where} documents ${status}`).toEqual({ $ref: ERROR_REF });
        expect(op.responses[status].description, `${where} ${status} description`).toEqual(expect.any(String));
      }
    }
  });

  it('when a partner success response is read, then its rate-limit and request-id headers are documented', () => {
    for (const route of routesUnder('/api/external')) {
      const headers = doc.paths[toOpenApiPath(route.url)][route.method.toLowerCase()].responses['200'].headers ?? {};
      expect(Object.keys(headers), `${route.method} ${route.url}`).toEqual(
        expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']),
      );
    }
  });

  it('when a partner POST is looked up, then it documents the Idempotency-Key header, the replay headers, 409 and 422', () => {
    const posts = routesUnder('/api/external').filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.url)).toEqual(
      expect.arrayContaining(['/api/external/medication-order', '/api/external/refill-request', '/api/external/webhook/test']),
    );
    for (const route of posts) {
      const where = `POST ${route.url}`;
      const op = doc.paths[toOpenApiPath(route.url)].post;
      const header = op.parameters?.find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(header, `${where} Idempotency-Key`).toBeDefined();
      expect(header.required, `${where} Idempotency-Key is optional`).toBe(false);
      expect(header.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
      expect(Object.keys(op.responses['200'].headers), where).toEqual(
        expect.arrayContaining(['Idempotent-Replayed', 'Idempotent-Original-Request-Id', 'X-Request-Id']),
      );
      expect(errorSchemaOf(op, '409'), `${where} 409`).toEqual({ $ref: ERROR_REF });
      expect(op.responses['409'].description, `${where} 409`).toMatch(/Idempotency-Key/);
      expect(errorSchemaOf(op, '422'), `${where} 422`).toEqual({ $ref: ERROR_REF });
      expect(op.responses['422'].description, `${where} 422`).toMatch(/IDEMPOTENCY_KEY_REUSED/);
    }
    // A route's own 409 keeps its meaning beside the key's.
    expect(doc.paths['/api/external/medication-order/{id}/cancel'].post.responses['409'].description).toMatch(
      /can no longer be cancelled/,
    );
  });

  it('when any other route is looked up, then it has no Idempotency-Key', () => {
    for (const route of t.app.registeredRoutes().filter((r) => r.method !== 'HEAD' && !r.schema?.hide)) {
      if (route.method === 'POST' && route.url.startsWith('/api/external/')) continue;
      const op = doc.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
      if (!op) continue;
      expect(op.parameters?.some((p: any) => p.name === 'Idempotency-Key') ?? false, `${route.method} ${route.url}`).toBe(false);
      expect(op.responses?.['422'], `${route.method} ${route.url}`).toBeUndefined();
    }
  });

  it('when every operator route is looked up, then each is documented behind the operator token with its 401 and the 429 of failed authentications', () => {
    for (const route of routesUnder('/api/admin')) {
      const where = `${route.method} ${route.url}`;
      const op = doc.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(op, `${where} is missing from /openapi.json`).toBeDefined();
      // Signing in is the one operator route without credentials.
      if (where === 'POST /api/admin/session') {
        expect(op.security, where).toEqual([]);
        continue;
      }
      expect(op.security, where).toEqual([{ operatorToken: [] }, { consoleSession: [] }]);
      expect(errorSchemaOf(op, '401'), where).toEqual({ $ref: ERROR_REF });
      expect(errorSchemaOf(op, '429'), where).toEqual({ $ref: ERROR_REF });
      expect(op.responses['429'].description, `${where}: only failed authentications are limited`).toMatch(
        /failed operator authentications/,
      );
    }
  });

  it('when any partner or operator route is looked up, then it documents the 403 behind a proxy without HTTPS and the 503 of a shutting-down server', () => {
    for (const route of [...routesUnder('/api/external'), ...routesUnder('/api/admin')]) {
      const where = `${route.method} ${route.url}`;
      const op = doc.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(op.responses['403']?.description, where).toMatch(/HTTPS is required/);
      expect(op.responses['503']?.description, where).toMatch(/shutting down/);
    }
  });

  it('when the document is read, then the health probes declare that they need no credential and the document itself is not listed', () => {
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/readyz'].get.security).toEqual([]);
    expect(doc.paths['/metrics'].get.security).toEqual([{ operatorToken: [] }]);
    expect(doc.paths['/openapi.json']).toBeUndefined();
  });

  it('when a request body is looked up, then it is required except where the route accepts none', () => {
    const optional = [
      'post /api/admin/clinics/{clinicId}/api-keys',
      'post /api/external/sandbox/medication-order/{id}/advance',
      'post /api/external/sandbox/medication-order/{id}/resume',
      'post /api/admin/medication-requests/{id}/resume',
      'post /api/admin/medication-requests/{id}/holds/{hold_id}/resolve',
      'post /api/admin/webhook-endpoints/{webhookId}/recover',
      'post /api/external/webhook/{webhookId}/rotate-secret',
      // The original system's form, `?id=` without a body (issue 22).
      'delete /api/external/webhook',
    ];
    const found: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!op.requestBody) continue;
        const where = `${method} ${path}`;
        expect(op.requestBody.required, where).toBe(!optional.includes(where));
        // The optional-body marker is gone; the one extension left is a partner route's scope.
        expect(
          Object.keys(op).filter((key) => key.startsWith('x-') && key !== 'x-required-scope'),
          where,
        ).toEqual([]);
        found.push(where);
      }
    }
    expect(found).toEqual(expect.arrayContaining([...optional, 'post /api/external/webhook/recover']));
  });

  it('when the order item, patient and practitioner bodies are read, then numbers carry their ranges and decimal places, and names and addresses their text rules', () => {
    const schemas = doc.components.schemas;
    const item = deref(schemas.MedicationOrderCreateRequest.properties.medication_requests.items);
    expect(item.properties.quantity).toMatchObject({ type: 'number', minimum: 0.001, maximum: 100000, 'x-decimal-places': 3 });
    expect(item.properties.quantity.description).toMatch(/at most 3 decimal places/);
    expect(item.properties.days_supply).toMatchObject({ type: 'integer', minimum: 1, maximum: 365 });
    expect(item.properties.days_supply.description).toMatch(/whole number from 1 to 365/);
    expect(item.properties.notes.description).toMatch(/NFC-normalized.*no bidirectional controls/);
    const patient = schemas.PatientCreateRequest.properties;
    expect(patient.first_name).toMatchObject({ 'x-text': 'name' });
    expect(patient.first_name.description).toMatch(
      /must contain a letter; no control characters, bidirectional controls or zero-width characters/,
    );
    const address = deref(patient.addresses.items).properties;
    expect(address.city).toMatchObject({ 'x-text': 'address' });
    expect(address.addressLine2.description).toMatch(/bidirectional controls or zero-width characters/);
    const practitioner = schemas.PractitionerCreateRequest.properties;
    expect(practitioner.last_name).toMatchObject({ 'x-text': 'name' });
    expect(practitioner.address_line_1).toMatchObject({ 'x-text': 'address' });
  });

  it('when /docs is opened, then (after any redirect) an HTML reference page is served', async () => {
    let url = '/docs';
    let res = await t.request('GET', url);
    for (let hops = 0; hops < 3 && res.status >= 300 && res.status < 400; hops++) {
      url = new URL(String(res.headers.location), 'http://localhost/docs').pathname;
      res = await t.request('GET', url);
    }
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(String(res.body)).toMatch(/<html/i);
    expect(String(res.body)).toMatch(/swagger/i);
  });

  it('when the reference page loads its document, then it is the same OpenAPI document', async () => {
    const res = await t.request('GET', '/docs/json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(Object.keys(doc.paths));
  });
});

describe('the reference pages in production', () => {
  const OPERATOR_TOKEN = 'prod-operator-token-0123456789-abcdef';
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite', env: { FULFILLMENT_ENV: 'production', ADMIN_TOKEN: OPERATOR_TOKEN } });
  });
  afterAll(async () => t.close());
  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };

  it('when /openapi.json or the page\u2019s document is fetched, then it holds the partner API and the probes, without the operator\u2019s routes or credentials', async () => {
    for (const url of ['/openapi.json', '/docs/json']) {
      const doc = (await t.request('GET', url)).body;
      const paths = Object.keys(doc.paths);
      expect(paths, url).toContain('/api/external/medication-order');
      expect(paths, url).toContain('/healthz');
      expect(
        paths.filter((path) => path.startsWith('/api/admin') || path === '/metrics'),
        url,
      ).toEqual([]);
      expect(Object.keys(doc.components.securitySchemes), url).toEqual(['apiKey', 'oauth2', 'oauthClientBasic']);
      expect(paths, url).toContain('/oauth/token');
      expect(
        doc.tags.map((tag: { name: string }) => tag.name),
        url,
      ).not.toContain('Operator');
      expect(Object.keys(doc.webhooks), url).toContain('order.created');
    }
  });

  it('when /docs/operator is opened without the operator\u2019s credentials, then 401; with them, the whole document', async () => {
    expect((await t.request('GET', '/docs/operator/json')).status).toBe(401);
    expect((await t.request('GET', '/docs/operator/json', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const res = await t.request('GET', '/docs/operator/json', { headers: operator });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/api/admin/clinics', '/api/external/medication-order']));
    const page = await t.request('GET', '/docs/operator/', { headers: operator });
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('<title>Partner Healthcare Fulfillment API: operator reference</title>');
  });

  it('when the partner page is opened, then it carries the product\u2019s title and no top bar with a stock logo', async () => {
    const page = await t.request('GET', '/docs/');
    expect(String(page.body)).toContain('<title>Partner Healthcare Fulfillment API</title>');
    const script = String((await t.request('GET', '/docs/static/swagger-initializer.js')).body);
    expect(script).toContain('"layout":"BaseLayout"');
  });
});
