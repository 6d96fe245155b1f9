// Over 250 lines: the three OpenAPI documents (partner, operator, portal) cut from one route table, with the shared components that keep them consistent.
import type { SwaggerOptions } from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import type { Config } from './config.js';
import { isIdempotentRoute } from './http/idempotency.js';
import { REQUEST_EXAMPLES } from './openapi-examples.js';
import { webhookEvents } from './openapi-webhooks.js';
import { areaOfPath, isUnder } from './http/areas.js';
import { API_VERSION_HEADER, ApiVersionHeaderSchema, CURRENT_API_VERSION } from './http/api-version.js';
import { requiredScopeOf } from './http/scope-guard.js';
import { ALL_SCOPES } from './clinics/scopes.js';
import { isOptionalBodyHook } from './contracts/optional-body.js';
import { MAX_JSON_DEPTH, MAX_JSON_ENTRIES } from './http/json-shape.js';
import { IdempotencyKeyHeaderSchema, ORIGINAL_REQUEST_ID_HEADER, REPLAYED_HEADER } from './http/idempotency-key.js';

/** The scopes of the OAuth security scheme: what a client (or a restricted key) may be given. */
const OAUTH_SCOPES = Object.fromEntries(
  ALL_SCOPES.map((scope) => {
    const [resource = '', access] = scope.split(':');
    const read = resource === 'webhooks' ? 'webhooks and the request log' : resource;
    return [scope, access === 'write' ? `Create and change ${resource} (and read ${read}).` : `Read ${read}.`];
  }),
);

/** The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger. */
export function openApiDocument(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Partner Healthcare Fulfillment API',
        version: CURRENT_API_VERSION,
        description: [
          'Register practitioners and patients, order compounded medications, request refills, price shipping',
          'and receive webhooks as orders move.',
          '',
          `This server is the **${config.env}** environment: it accepts only \`${config.env === 'production' ? 'prod_' : 'dev_'}\` keys.`,
          '',
          'Every partner request carries `x-api-key`, or `Authorization: Bearer <access token>` from POST /oauth/token (OAuth 2.0',
          'client credentials, docs/oauth.md). Responses are `{success: true, data, message}`; errors are',
          '`{success: false, error: {message, code, details?, request_id}}`. Every response carries `X-Request-Id`;',
          'partner responses also carry the `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` headers.',
          `Request bodies are JSON (\`Content-Type: application/json\`) of at most 1 MiB, nested at most ${MAX_JSON_DEPTH} deep, holding`,
          `at most ${MAX_JSON_ENTRIES} array items and object fields in all; unknown body fields are refused.`,
          'Every partner POST takes an optional `Idempotency-Key` header: a retry with the same key and request within 24 hours',
          'answers the first response again (`Idempotent-Replayed: true`) instead of running twice.',
          '',
          `Every response of the APIs names the version that answered in its \`Api-Version\` header (${CURRENT_API_VERSION});`,
          'a request may pin one with the same header (`1.0.0`, or `1.4` / `1` for the newest matching). An operation marked',
          'deprecated still works until its sunset, and its answers carry `Deprecation`, `Sunset` and `Link` headers',
          '(RFC 9745, RFC 8594) pointing to the migration guide: docs/versioning.md.',
        ].join('\n'),
      },
      servers: [{ url: '/', description: config.env }],
      tags: [
        { name: 'Practitioners', description: 'The doctors and veterinarians who prescribe for your clinic.' },
        { name: 'Patients', description: 'The people and animals your clinic orders for.' },
        { name: 'Shipping', description: 'Carriers and their services, priced for a patient.' },
        { name: 'Formulary', description: 'The medications your clinic\u2019s orders accept.' },
        { name: 'Orders', description: 'Medication requests (orders) and their status.' },
        { name: 'Refills', description: 'Refills of a delivered order.' },
        { name: 'Webhooks', description: 'Endpoints that receive the events of your clinic, signed (Standard Webhooks).' },
        {
          name: 'Request log',
          description:
            'Your clinic\u2019s recent requests (14 days by default): metadata only, to find a failed request by its id.',
        },
        {
          name: 'FHIR',
          description:
            'The same patients, practitioners, orders and fills as FHIR R4 (US Core) resources, read-only, for EHRs (docs/fhir.md): application/fhir+json, OperationOutcome errors, SMART backend services.',
        },
        { name: 'Sandbox', description: 'Development environment only.' },
        { name: 'Operator', description: 'The pharmacy\u2019s own API, behind the operator token.' },
        { name: 'Portal', description: 'The partner portal\u2019s API (docs/portal.md), behind a partner user\u2019s session.' },
        { name: 'Health', description: 'Probes for load balancers and orchestrators; no credential.' },
        { name: 'OAuth', description: 'Access tokens for OAuth 2.0 clients (client credentials), instead of an API key.' },
        {
          name: 'Carrier events',
          description:
            'Tracking webhooks the pharmacy’s carrier services post (EasyPost), signed; not a partner API (docs/shipping.md).',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: '`dev_…` or `prod_…` partner key.' },
          oauth2: {
            type: 'oauth2',
            description:
              'An access token of an OAuth client (`Authorization: Bearer`), from POST /oauth/token; it lives 15 minutes and has the rights of an API key with the same scopes.',
            flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: OAUTH_SCOPES } },
          },
          oauthClientBasic: {
            type: 'http',
            scheme: 'basic',
            description:
              'An OAuth client\u2019s `client_id:client_secret` at POST /oauth/token (or both in the form, or a client_assertion).',
          },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'The operator\u2019s ADMIN_TOKEN (acts as an admin).' },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'fulfillment_session',
            description:
              'A staff member\u2019s console session (POST /api/admin/session); its role decides the routes, and a state-changing request must carry the server\u2019s own Origin.',
          },
          portalSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'portal_session',
            description:
              'A partner user\u2019s portal session (POST /api/portal/session): a person of one clinic, `viewer` or `developer`; a state-changing request must carry the server\u2019s own Origin.',
          },
          easyPostSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Hmac-Signature',
            description:
              '`hmac-sha256-hex=` and the HMAC-SHA256 (hex) of the raw body under EASYPOST_WEBHOOK_SECRET (NFKD-normalized), as EasyPost signs its webhook Events.',
          },
        },
      },
    },
    refResolver: {
      // Shared schemas keep their $id as their component name (ErrorEnvelope).
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => ({
      schema: documentRoute(url, schema, route.method, { optionalBody: hasOptionalBody(route.preValidation) }),
      url,
    }),
    transformObject: (document) =>
      'openapiObject' in document
        ? withWebhooks(unnestNamedSchemas(markOptionalBodies(document.openapiObject)))
        : document.swaggerObject,
  };
}

/** Adds the `webhooks` section (the events the server sends) and their bodies' schemas. */
function withWebhooks<T extends { components?: { schemas?: Record<string, unknown> } }>(document: T): T {
  const { webhooks, schemas } = webhookEvents();
  return {
    ...document,
    webhooks,
    components: { ...document.components, schemas: { ...document.components?.schemas, ...schemas } },
  };
}

/**
 * @fastify/swagger writes `requestBody.required: true` for every body; a route whose body may be left
 * out (emptyBodyWhenAbsent, or another optionalBodyHook) is marked by documentRoute and loses `required` here.
 */
const OPTIONAL_BODY = 'x-optional-body';

function hasOptionalBody(preValidation: unknown): boolean {
  const hooks: unknown[] = Array.isArray(preValidation) ? preValidation : [preValidation];
  return hooks.some(isOptionalBodyHook);
}

function markOptionalBodies<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, Record<string, unknown>>> }).paths ?? {};
  for (const operation of Object.values(paths).flatMap((item) => Object.values(item))) {
    if (!(OPTIONAL_BODY in operation)) continue;
    Reflect.deleteProperty(operation, OPTIONAL_BODY);
    const body = operation.requestBody as { required?: boolean } | undefined;
    if (body) body.required = false;
  }
  return document;
}

const errorRef = (description: string) => Type.Ref('ErrorEnvelope', { description });

/** Headers every partner response carries (set by the request-id hook and the partner guard). */
const PARTNER_HEADERS = {
  [API_VERSION_HEADER]: Type.String({ description: 'The API version that answered (semantic versioning).' }),
  'X-RateLimit-Limit': Type.Integer({ description: 'Requests allowed per minute for this API key.' }),
  'X-RateLimit-Remaining': Type.Integer({ description: 'Requests left in the current minute.' }),
  'X-RateLimit-Reset': Type.Integer({ description: 'When the current minute ends, in Unix seconds.' }),
  'X-Request-Id': Type.String({
    description:
      'This request\u2019s id, always chosen by the server (an X-Request-Id you send is recorded beside it, not used); quote it to support.',
  }),
};

/** Headers of a deprecated operation's answers (deprecations/deprecation-headers.ts), beside the partner's own. */
const DEPRECATED_HEADERS = {
  ...PARTNER_HEADERS,
  Deprecation: Type.String({ description: 'RFC 9745: when the operation was deprecated, `@` and Unix seconds (`@1795564800`).' }),
  Sunset: Type.String({ description: 'RFC 8594: when it stops working, an HTTP-date (`Tue, 25 May 2027 00:00:00 GMT`).' }),
  Link: Type.String({ description: 'The migration guide: `<…>; rel="deprecation"; type="text/html"`.' }),
};

/** Headers of a replayed response (partner POST routes: http/idempotency.ts). */
const REPLAY_HEADERS = {
  [REPLAYED_HEADER]: Type.Literal('true', {
    description: 'Present on a replay: this is the stored response of the first request with this Idempotency-Key.',
  }),
  [ORIGINAL_REQUEST_ID_HEADER]: Type.String({
    description: 'Present on a replay: the X-Request-Id of the first request, whose response this is.',
  }),
};

/**
 * A request or response schema with an `$id` (`Practitioner`, `MedicationOrder`…) is a named component
 * of the document. @fastify/swagger hoists a schema with an `$id` into the components only when it is
 * nested, so a route's own body and responses are nested in a one-item `allOf` here, which
 * `unnestNamedSchemas` turns back into a plain `$ref` once hoisted. Validation and serialization
 * use the route's schema as it is.
 */
function nestNamedSchemas(route: DocumentedSchema): DocumentedSchema {
  const named = (part: unknown): boolean =>
    typeof part === 'object' && part !== null && typeof (part as { $id?: unknown }).$id === 'string';
  const nest = (part: unknown): unknown => (named(part) ? { allOf: [part] } : part);
  // The route's request example (openapi-examples.ts): @fastify/swagger moves a body's root `examples`
  // to the media type's `example`, which "Try it out" fills in.
  const example = route.operationId === undefined ? undefined : REQUEST_EXAMPLES[route.operationId];
  const body = route.body && example ? { ...(nest(route.body) as object), examples: [example] } : nest(route.body);
  return {
    ...route,
    ...(route.body ? { body } : {}),
    ...(route.response
      ? { response: Object.fromEntries(Object.entries(route.response).map(([status, part]) => [status, nest(part)])) }
      : {}),
  };
}

/** `{allOf: [{$ref}], description?}` → `{$ref, description?}`, anywhere in the document (see nestNamedSchemas). */
function unnestNamedSchemas<T>(node: T): T {
  if (Array.isArray(node)) return node.map(unnestNamedSchemas) as T;
  if (node === null || typeof node !== 'object') return node;
  const { allOf, ...rest } = node as Record<string, unknown>;
  const ref = Array.isArray(allOf) && allOf.length === 1 ? (allOf[0] as Record<string, unknown>) : null;
  if (
    ref &&
    Object.keys(ref).length === 1 &&
    typeof ref.$ref === 'string' &&
    Object.keys(rest).every((key) => key === 'description')
  ) {
    return { $ref: ref.$ref, ...rest } as T;
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, unnestNamedSchemas(value)])) as T;
}

type DocumentedSchema = FastifySchema & { hide?: boolean; security?: unknown; response?: Record<string, unknown> };

/**
 * Documents what the cross-cutting hooks do to every route, so that routes need not repeat it:
 * the credential each area needs and the errors the guards and the JSON parser answer with.
 * Only the document changes; the route's own schemas still validate and serialize.
 */
export function documentRoute(
  url: string,
  schema: FastifySchema | undefined,
  method: string | string[] = 'GET',
  options: { optionalBody?: boolean } = {},
): FastifySchema {
  const given = (schema ?? {}) as DocumentedSchema;
  if (given.hide) return given;
  const route = nestNamedSchemas(given);
  const partner = url === '/api/external' || url.startsWith('/api/external/');
  const operator = url === '/api/admin' || url.startsWith('/api/admin/');
  // A public route (the health probes) says so, unless it names its own credential (/metrics).
  if (!partner && !operator) return { ...route, security: route.security ?? [] };

  const response: Record<string, unknown> = { ...(route.response ?? {}) };
  const add = (status: number, description: string) => {
    if (!(String(status) in response)) response[String(status)] = errorRef(description);
  };
  if (partner) {
    add(401, 'Missing, unknown, revoked, expired or wrong-environment API key (the message starts with "Unauthorized").');
    add(429, 'Rate limit exceeded: `retry_after` and the Retry-After header say when to retry.');
    const ok = response['200'];
    if (ok && typeof ok === 'object') {
      response['200'] = { description: 'Success.', ...ok, headers: route.deprecated ? DEPRECATED_HEADERS : PARTNER_HEADERS };
    }
  } else {
    add(401, 'Missing or wrong operator bearer token, or a console session that has ended.');
    add(
      429,
      'Too many failed operator authentications from this address (20 a minute): `retry_after` and Retry-After say when to retry.',
    );
  }
  add(406, 'The Accept header does not allow application/json.');
  // Behind a proxy (TRUST_PROXY), a call that did not reach it over HTTPS; appended to a route's own 403.
  const https = 'Behind a TLS-terminating proxy: the request did not reach it over HTTPS ("HTTPS is required: …").';
  const scope = partner ? requiredScopeOf(given) : undefined;
  // A restricted key outside its scopes (http/scope-guard.ts), after the route's own 403 if it has one.
  const outOfScope =
    scope &&
    `FORBIDDEN: a restricted API key without the scope \`${scope}\` ("Forbidden: this API key lacks the scope ${scope}").`;
  const forbidden = response['403'] as { description?: string } | undefined;
  const reasons = [forbidden?.description, outOfScope, https].filter((text): text is string => Boolean(text)).join(' Or: ');
  response['403'] = forbidden ? { ...forbidden, description: reasons } : errorRef(reasons);
  add(
    503,
    'The server is shutting down (send the request again: the connection is closed, so a retry reaches another instance); or, for reads of PHI, the audit trail cannot be written right now.',
  );
  if (route.body) {
    add(413, 'The body is larger than 1 MiB.');
    add(415, 'The body is not sent as application/json.');
  }
  const idempotent = isIdempotentRoute(method, url);
  if (idempotent) documentIdempotency(response);
  return {
    ...route,
    ...(scope ? { description: withScopeLine(route.description, scope) } : {}),
    headers: Type.Object({
      [API_VERSION_HEADER]: Type.Optional(ApiVersionHeaderSchema),
      ...(idempotent ? { 'Idempotency-Key': Type.Optional(IdempotencyKeyHeaderSchema) } : {}),
    }),
    security: partner
      ? [{ apiKey: [] }, { oauth2: scope ? [scope] : [] }]
      : url === '/api/admin/session' && method === 'POST'
        ? []
        : [{ operatorToken: [] }, { consoleSession: [] }],
    response,
    ...(options.optionalBody && route.body ? { [OPTIONAL_BODY]: true } : {}),
  };
}

/**
 * The scope line of a partner operation's description; the same scope is the operation's
 * `x-required-scope` extension, which @fastify/swagger copies from the route's schema.
 */
function withScopeLine(description: string | undefined, scope: string): string {
  const line = `**Scope:** \`${scope}\` (restricted API keys; \`write\` implies \`read\`, a key without scopes has full access).`;
  return description ? `${description}\n\n${line}` : line;
}

/** The responses the Idempotency-Key adds to a partner POST: replay headers, 409 and 422. */
function documentIdempotency(response: Record<string, unknown>): void {
  const ok = response['200'] as { headers?: Record<string, unknown> } | undefined;
  if (ok) response['200'] = { ...ok, headers: { ...ok.headers, ...REPLAY_HEADERS } };
  const inFlight = 'a request with the same Idempotency-Key is still being processed (retry once it completes).';
  const conflict = response['409'] as { description?: string } | undefined;
  response['409'] = conflict
    ? { ...conflict, description: `${conflict.description ?? ''} Or: ${inFlight}`.trim() }
    : errorRef(`CONFLICT: ${inFlight}`);
  response['422'] = errorRef(
    'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used in the last 24 hours with a different body or path on this route.',
  );
}

/** Where the whole document (partner and operator routes) is shown, behind the operator's credentials. */
export const OPERATOR_DOCS_PREFIX = '/docs/operator';

/** The security schemes of the operator's routes. */
const OPERATOR_SCHEMES = ['operatorToken', 'consoleSession'];
/** The security scheme of the portal API (a partner user's session cookie). */
const PORTAL_SCHEMES = ['portalSession'];
/** The security scheme of the carriers' webhooks (docs/shipping.md): the pharmacy's, not a partner's. */
const CARRIER_SCHEMES = ['easyPostSignature'];

/** The portal API (docs/portal.md): a partner user's session, under /api/portal. */
export const PORTAL_PREFIX = '/api/portal';
const isPortalPath = (path: string) => isUnder(path, PORTAL_PREFIX);

type Operations = Record<string, { security?: Record<string, unknown>[]; tags?: string[] }>;
interface Published {
  paths?: Record<string, Operations>;
  tags?: { name: string }[];
  webhooks?: unknown;
  components?: { securitySchemes?: Record<string, unknown>; schemas?: Record<string, unknown> };
}

const usesScheme = (item: Operations, schemes: string[]) =>
  Object.values(item).some((operation) => operation.security?.some((scheme) => schemes.some((name) => name in scheme)));

/**
 * The document a partner sees in production (/openapi.json, /docs): the partner API and the health
 * probes, without the operator's or the portal's routes, tags and credentials (the whole document
 * is shown at OPERATOR_DOCS_PREFIX).
 */
export function partnerDocument(published: object): Record<string, unknown> {
  const document = published as Published;
  const hidden = [...OPERATOR_SCHEMES, ...PORTAL_SCHEMES, ...CARRIER_SCHEMES];
  const forOthers = (path: string, item: Operations) =>
    areaOfPath(path) === 'admin' || areaOfPath(path) === 'carrier' || isPortalPath(path) || usesScheme(item, hidden);
  const schemes = document.components?.securitySchemes ?? {};
  return {
    ...document,
    paths: Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path, item]) => !forOthers(path, item))),
    tags: document.tags?.filter((tag) => !['Operator', 'Portal', 'Carrier events'].includes(tag.name)),
    components: {
      ...document.components,
      securitySchemes: Object.fromEntries(Object.entries(schemes).filter(([name]) => !hidden.includes(name))),
    },
  };
}

/**
 * The operator API alone (the paths under /api/admin), what the console's types are generated from
 * (console/src/generated/operator.ts, scripts/generate-client.js): no partner route, no webhooks.
 */
export function operatorDocument(published: object): Record<string, unknown> {
  return documentOf(published, (path) => areaOfPath(path) === 'admin', OPERATOR_SCHEMES);
}

/** The portal API alone (the paths under /api/portal): what console/src/generated/portal.ts is generated from. */
export function portalDocument(published: object): Record<string, unknown> {
  return documentOf(published, isPortalPath, PORTAL_SCHEMES);
}

/**
 * The paths `keep` accepts, with only the tags, security schemes and named schemas they use (named
 * schemas followed through their own references), and without the webhooks section.
 */
function documentOf(document: Published, keep: (path: string) => boolean, schemes: string[]): Record<string, unknown> {
  const { webhooks: _webhooks, ...rest } = document;
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path]) => keep(path)));
  const operations = Object.values(paths).flatMap((item) => Object.values(item));
  const tags = new Set(operations.flatMap((operation) => operation.tags ?? []));
  const all = document.components?.schemas ?? {};
  const used = new Set<string>();
  const follow = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(follow);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        const name = key === '$ref' && typeof value === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(value)?.[1] : undefined;
        if (name === undefined) follow(value);
        else if (!used.has(name)) {
          used.add(name);
          follow(all[name]);
        }
      }
    }
  };
  follow(paths);
  return {
    ...rest,
    paths,
    tags: document.tags?.filter((tag) => tags.has(tag.name)),
    components: {
      ...document.components,
      schemas: Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name))),
      securitySchemes: Object.fromEntries(
        Object.entries(document.components?.securitySchemes ?? {}).filter(([name]) => schemes.includes(name)),
      ),
    },
  };
}
