import type { Bundle, BundleEntry, Resource } from '@medplum/fhirtypes';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { notFoundIn, type NamedRecord } from '../audit/denied-access.js';
import { toAppError } from '../contracts/error-handler.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { CURRENT_API_VERSION } from '../http/api-version.js';
import { partnerAudit } from '../http/audit-context.js';
import { deniedAccessRecorder } from '../http/denied-access.js';
import { partnerOf } from '../http/partner-guard.js';
import { publicBaseUrl } from '../http/request-host.js';
import { capabilityStatement } from './capability-statement.js';
import { operationOutcomeOf } from './fhir-errors.js';
import { FHIR_BASE_PATH } from './fhir-base.js';
import { FHIR_JSON } from './fhir-negotiation.js';
import type { FhirResourceKind, SearchPage } from './fhir-resource.js';
import { CURSOR_PARAM, encodeContinuation, FHIR_ID, parseSearch, type RawQuery } from './fhir-search.js';

/**
 * The routes below the FHIR base that need no credential: what the server can do, and SMART's
 * discovery (oauth/smart-configuration.routes.ts), which SMART looks for below the FHIR base too.
 */
export const FHIR_PUBLIC_PATHS: ReadonlySet<string> = new Set([
  `${FHIR_BASE_PATH}/metadata`,
  `${FHIR_BASE_PATH}/.well-known/smart-configuration`,
]);

const CONTENT_TYPE = `${FHIR_JSON}; charset=utf-8`;

/** The records of another clinic a 404 may hide, by resource type: recorded as denied accesses (audit/denied-access.ts). */
const DENIED_RECORD: Partial<Record<string, NamedRecord['type']>> = { Patient: 'patient', Practitioner: 'practitioner' };

/**
 * The FHIR R4 API (issue 32): `metadata`, and each resource kind read by id and searched, within the
 * caller's clinic. The credential, rate limit and FHIR content negotiation are checked in app.ts's
 * onRequest hook (area `fhir`), as the partner API's are; a restricted credential needs the kind's
 * scope (`x-required-scope`, http/scope-guard.ts). Every refusal, the guard's included, is an
 * OperationOutcome (this plugin's error handler), every answer `application/fhir+json`, and every
 * read of PHI is in the audit trail before it is answered.
 */
export function fhirRoutes(ctx: AppContext, kinds: readonly FhirResourceKind[]) {
  return async (app: FastifyInstance): Promise<void> => {
    const observeRefusal = deniedAccessRecorder(ctx);
    const baseOf = (request: FastifyRequest) => `${publicBaseUrl(request, ctx.config)}${FHIR_BASE_PATH}`;

    app.setErrorHandler((error, request, reply) => {
      const appError = toAppError(error);
      if (appError.statusCode >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
      else request.log.info({ code: appError.code, status: appError.statusCode }, 'request refused');
      request.answeredError = appError;
      // RFC 6750 §3: how to authenticate, on every 401 (a token that was sent and refused: invalid_token).
      if (appError.statusCode === 401) {
        const sent = request.headers.authorization !== undefined && request.headers['x-api-key'] === undefined;
        reply.header('WWW-Authenticate', `Bearer realm="fhir"${sent ? ', error="invalid_token"' : ''}`);
      }
      reply.code(appError.statusCode).type(CONTENT_TYPE);
      const body = JSON.stringify(operationOutcomeOf(appError, request.id));
      const observed = observeRefusal(request, appError);
      return observed === undefined ? reply.send(body) : observed.then(() => body);
    });
    app.setNotFoundHandler((request) => {
      const path = (request.url.split('?')[0] ?? '').slice(FHIR_BASE_PATH.length + 1);
      const type = path.split('/')[0] ?? '';
      if (kinds.some((kind) => kind.type === type) && request.method !== 'GET' && request.method !== 'HEAD') {
        throw new AppError('METHOD_NOT_ALLOWED', 405, `Method ${request.method} is not allowed: this FHIR server is read-only`);
      }
      const known = kinds.map((kind) => kind.type).join(', ');
      throw new AppError('NOT_FOUND', 404, `Not found: this FHIR server serves metadata and ${known}, read by id and searched`);
    });

    app.get('/metadata', { schema: metadataSchema }, (request, reply) => {
      const origin = publicBaseUrl(request, ctx.config);
      return send(
        reply,
        capabilityStatement(kinds, {
          baseUrl: baseOf(request),
          tokenUrl: `${origin}/oauth/token`,
          softwareVersion: CURRENT_API_VERSION,
        }),
      );
    });

    for (const kind of kinds) {
      app.get<{ Params: { id: string } }>(`/${kind.type}/:id`, { schema: readSchema(kind) }, async (request, reply) => {
        const { clinicId } = partnerOf(request);
        const { id } = request.params;
        const found = FHIR_ID.test(id) ? await kind.read(ctx, clinicId, id) : undefined;
        if (found === undefined) {
          const denied = DENIED_RECORD[kind.type];
          const message = `${kind.type}/${FHIR_ID.test(id) ? id : '…'} not found`;
          throw denied === undefined || !FHIR_ID.test(id)
            ? new AppError('NOT_FOUND', 404, message)
            : notFoundIn({ type: denied, id }, message);
        }
        await ctx.audit.recordReads(partnerAudit(request), found.audit);
        return send(reply, found.resource);
      });

      app.get(`/${kind.type}`, { schema: searchSchema(kind) }, async (request, reply) => {
        const { clinicId } = partnerOf(request);
        const search = parseSearch(kind, request.query as RawQuery);
        const page = await kind.search(ctx, clinicId, search.query, { count: search.count, afterId: search.afterId });
        await ctx.audit.recordReads(partnerAudit(request), distinct(page.audit));
        const base = baseOf(request);
        const next = page.hasMore ? page.matches[page.matches.length - 1]?.id : undefined;
        return send(
          reply,
          searchBundle(
            base,
            kind.type,
            request.url,
            page,
            next === undefined ? null : encodeContinuation(next, search.fingerprint),
            search.count,
          ),
        );
      });
    }
  };
}

function send(reply: FastifyReply, resource: Resource): string {
  reply.type(CONTENT_TYPE);
  return JSON.stringify(resource);
}

/** Each record once (a search's includes may name a record its matches already did). */
function distinct(records: readonly AuditedResource[]): AuditedResource[] {
  const seen = new Map<string, AuditedResource>();
  for (const record of records) seen.set(`${record.type}/${record.id}`, record);
  return [...seen.values()];
}

/**
 * A searchset Bundle (FHIR R4 §3.1.1.2): `total`, the `self` link (the search as asked), the `next`
 * link (the same search continued after this page's last match), the matches, then the included
 * resources (search.mode `include`).
 */
function searchBundle(
  base: string,
  type: string,
  url: string,
  page: SearchPage,
  continuation: string | null,
  count: number,
): Bundle {
  const asked = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const link: Bundle['link'] = [{ relation: 'self', url: `${base}/${type}${asked.size > 0 ? `?${asked.toString()}` : ''}` }];
  if (continuation !== null) {
    const next = new URLSearchParams(asked);
    next.set(CURSOR_PARAM, continuation);
    next.set('_count', String(count));
    link.push({ relation: 'next', url: `${base}/${type}?${next.toString()}` });
  }
  const entry = (resource: Resource, mode: 'match' | 'include'): BundleEntry => ({
    fullUrl: `${base}/${resource.resourceType}/${resource.id ?? ''}`,
    resource,
    search: { mode },
  });
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    total: page.total,
    link,
    entry: [
      ...page.matches.map((resource) => entry(resource, 'match')),
      ...(page.included ?? []).map((resource) => entry(resource, 'include')),
    ],
  };
}

/*
 * The route schemas document the FHIR API in the OpenAPI document without restating FHIR's own
 * schemas: each answer is described and linked to its definition in the FHIR R4 specification.
 * The answers are sent as serialized JSON, so these response schemas never serialize anything.
 */
const fhirAnswer = (description: string) => ({ description, type: 'object', additionalProperties: true });
const outcome = (description: string) =>
  fhirAnswer(`An OperationOutcome (http://hl7.org/fhir/R4/operationoutcome.html): ${description}`);
const REFUSALS = {
  401: outcome('no credential, or a refused one; WWW-Authenticate: Bearer.'),
  403: outcome('a restricted credential without the scope.'),
  404: outcome('no such resource in your clinic.'),
  406: outcome('Accept or _format asks for anything but FHIR JSON.'),
  429: outcome('rate limit exceeded; Retry-After says when to retry.'),
};
const credentials = (kind: FhirResourceKind): Record<string, string[]>[] => [{ apiKey: [] }, { oauth2: [kind.scope] }];

const metadataSchema = {
  operationId: 'getFhirMetadata',
  tags: ['FHIR'],
  summary: 'The FHIR server\u2019s CapabilityStatement',
  description:
    'Public (no credential): FHIR R4 (4.0.1), JSON, every resource with its interactions and search parameters (docs/fhir.md).',
  produces: [FHIR_JSON],
  security: [],
  response: { 200: fhirAnswer('A CapabilityStatement (http://hl7.org/fhir/R4/capabilitystatement.html).'), 406: REFUSALS[406] },
} as FastifySchema;

function readSchema(kind: FhirResourceKind): FastifySchema {
  return {
    operationId: `readFhir${kind.type}`,
    tags: ['FHIR'],
    summary: `Read a ${kind.type}`,
    description: `One ${kind.type} of your clinic by id (docs/fhir.md). Scope: ${kind.scope} (SMART system/${kind.type}.rs).`,
    'x-required-scope': kind.scope,
    produces: [FHIR_JSON],
    security: credentials(kind),
    params: Type.Object({ id: Type.String({ description: `The ${kind.type}\u2019s id.` }) }),
    response: { 200: fhirAnswer(`A ${kind.type} (http://hl7.org/fhir/R4/${kind.type.toLowerCase()}.html).`), ...REFUSALS },
  };
}

function searchSchema(kind: FhirResourceKind): FastifySchema {
  const params = kind.searchParams.map((param) => `\`${param.name}\` (${param.type}): ${param.documentation}`);
  const include = kind.includes && kind.includes.length > 0 ? [`\`_include\`: ${kind.includes.join(', ')}`] : [];
  return {
    operationId: `searchFhir${kind.type}`,
    tags: ['FHIR'],
    summary: `Search ${kind.type}`,
    description: [
      `A searchset Bundle of your clinic\u2019s ${kind.type} resources, with \`total\` and \`self\`/\`next\` links (docs/fhir.md). Scope: ${kind.scope} (SMART system/${kind.type}.rs).`,
      '',
      'Search parameters (alternatives comma-separated; each parameter at most once):',
      ...[
        ...params,
        ...include,
        '`_count`: 1 to 100 (50 by default)',
        `\`${CURSOR_PARAM}\`: from the \`next\` link, as given`,
      ].map((line) => `- ${line}`),
    ].join('\n'),
    'x-required-scope': kind.scope,
    produces: [FHIR_JSON],
    security: credentials(kind),
    response: {
      200: fhirAnswer('A Bundle of type searchset (http://hl7.org/fhir/R4/bundle.html).'),
      400: outcome(
        'an unknown, repeated, chained or malformed search parameter, or a continuation this server did not hand out.',
      ),
      ...REFUSALS,
    },
  };
}
