import swagger from '@fastify/swagger';
import swaggerUi, { type FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { guardOperatorRequest } from './http/operator-guard.js';
import { acceptApiVersion, announceApiVersion } from './http/api-version.js';
import { areaOfPath, routedPath } from './http/areas.js';
import { checkContentNegotiation } from './http/content-negotiation.js';
import { checkFhirNegotiation } from './fhir/fhir-negotiation.js';
import { FHIR_PUBLIC_PATHS } from './fhir/fhir.routes.js';
import { registerConsole } from './http/console.js';
import { deniedAccessRecorder } from './http/denied-access.js';
import { registerErrorHandler, sendError } from './contracts/error-handler.js';
import { answerBeforeRouting, answerUnparsableRequest, checkHttpRules, passExpectations } from './http/framework-errors.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerJsonParser } from './http/json-body.js';
import { lingeringClose } from './http/lingering-close.js';
import { guardPartnerRequest } from './http/partner-guard.js';
import { nearestPartnerRoute } from './http/nearest-route.js';
import { guardPortalRequest } from './http/portal-guard.js';
import { requireHttps } from './http/https-required.js';
import { applySecurityHeaders, DOCS_CSP } from './http/security-headers.js';
import { requestIdGenerator } from './http/request-id.js';
import { registerRequestEnd } from './http/request-end.js';
import { RouteIndex } from './http/routes-index.js';
import { serverTimeoutOptions } from './http/server-timeouts.js';
import { ErrorEnvelope } from './contracts/schemas.js';
import { buildSerializerOnce } from './contracts/compiled-once.js';
import { validatorCompiler } from './contracts/validation.js';
import { LOG_REDACT_PATHS, logSerializers } from './http/logging.js';
import { OPERATOR_DOCS_PREFIX, openApiDocument, partnerDocument } from './openapi.js';
import { registerRoutes } from './routes.js';
import { addressMatcher } from './shared/address-ranges.js';

export type App = FastifyInstance;

export interface BuildAppOptions {
  /** Where the log lines go instead of stdout: tests pass a stream that captures them. */
  logStream?: DestinationStream;
  /** The certificate and key (PEM) when the server speaks HTTPS itself (main.ts reads TLS_CERT_FILE/TLS_KEY_FILE). */
  https?: { cert: Buffer; key: Buffer };
}

/**
 * Builds the HTTP application around a ready context (database migrated, stores open).
 * Does not listen: main.ts does, and tests use `inject` or their own port.
 */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<App> {
  // TRUST_PROXY: only these peers' X-Forwarded-For / X-Forwarded-Proto are believed (request.ip
  // walks X-Forwarded-For from the nearest hop and stops at the first address not in the list).
  const isTrustedProxy = addressMatcher(ctx.config.trustProxy);
  const behindProxy = ctx.config.trustProxy.length > 0;
  let closing = false;
  // Slow clients are cut off (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS).
  const nodeOptions = serverTimeoutOptions(ctx.config.httpTimeouts);
  const app = Fastify({
    // TLS 1.0 and 1.1 are refused whatever Node's defaults or flags say.
    ...(options.https ? { https: { ...options.https, ...nodeOptions, minVersion: 'TLSv1.2' as const } } : { http: nodeOptions }),
    // Fastify sets these two on the server after creating it (its defaults: 72 s, and no limit).
    requestTimeout: ctx.config.httpTimeouts.requestMs,
    keepAliveTimeout: ctx.config.httpTimeouts.keepAliveMs,
    logger: {
      level: ctx.config.logLevel,
      // Credentials never reach the logs; bodies (which hold PHI) are never logged at all; a request
      // is logged by its route pattern, not its URL; errors without the driver's row data (http/logging.ts).
      redact: LOG_REDACT_PATHS,
      serializers: logSerializers,
      stream: options.logStream,
    },
    // One line per request instead of Fastify's two, without the URL (http/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdGenerator(ctx.clock),
    bodyLimit: ctx.config.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
    trustProxy: behindProxy ? (address: string) => isTrustedProxy(address) : false,
    // While closing, requests that still arrive on open connections get our 503 envelope (below).
    return503OnClosing: false,
    frameworkErrors: answerBeforeRouting(ctx),
    clientErrorHandler: answerUnparsableRequest,
    // Each response schema compiled once per process (contracts/compiled-once.ts).
    schemaController: { compilersFactory: { buildSerializer: buildSerializerOnce } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  passExpectations(app.server);
  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(ErrorEnvelope);
  // A partner's 404 for another clinic's record is recorded as a denied access before it is answered.
  registerErrorHandler(app, deniedAccessRecorder(ctx));
  registerJsonParser(app);

  const routes = new RouteIndex();
  app.addHook('onRoute', (route) => routes.add(route.method, route.url, route.schema));
  app.decorate('registeredRoutes', () => routes.list());
  // One onResponse hook: the request's duration observed, its log line written, its request log entry kept.
  registerRequestEnd(app, ctx);
  // Before the routes are registered: its onRoute hook equips every partner POST.
  registerIdempotency(app, ctx);

  // From the start of a graceful close on, requests still arriving on open connections get a 503,
  // and every answer closes its connection: a keep-alive connection left idle after its last answer
  // would otherwise hold the close until its keep-alive timeout.
  // An answer sent before its request's body has all arrived (a 413, a guard's refusal) is followed by
  // a lingering close, so that the client reads it rather than a reset (http/lingering-close.ts).
  const lingering = lingeringClose(ctx.config.lingeringClose);
  app.addHook('preClose', (done) => {
    closing = true;
    lingering.stop();
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    lingering.linger(request.raw, reply.raw);
    done(null, payload);
  });
  // Every request, in one hook (each hook run costs every request; docs/performance.md): the
  // security headers and its id on the response (so that every refusal carries them), then (behind
  // a proxy) HTTPS for the APIs, then the guard of its area (partner key and rate limit, or operator
  // credentials), then JSON content negotiation. Synchronous up to the guard, which alone may wait.
  const admit = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    applySecurityHeaders(request, reply);
    reply.header('X-Request-Id', request.id);
    if (closing) throw new AppError('SERVICE_UNAVAILABLE', 503, 'The server is shutting down: send the request again');
    checkHttpRules(request);
    const area = areaOfPath(routedPath(request));
    if (area === 'public') return undefined;
    // The portal's API is the portal page's, not a versioned API: its session and origin, then JSON.
    if (area === 'portal') {
      if (behindProxy) requireHttps(request, isTrustedProxy);
      return guardPortalRequest(ctx, request, reply).then(() => checkContentNegotiation(request));
    }
    // A carrier's webhook is not a versioned API and has no key (its route checks the carrier's
    // signature): HTTPS behind a proxy, then JSON (shipments/easypost.routes.ts).
    if (area === 'carrier') {
      if (behindProxy) requireHttps(request, isTrustedProxy);
      checkContentNegotiation(request);
      return undefined;
    }
    // The FHIR API: a partner's credential and rate limit, FHIR's JSON; its metadata and SMART discovery are public, and it
    // is versioned by FHIR's own version in its path, not by Api-Version (fhir/fhir.routes.ts).
    if (area === 'fhir') {
      if (behindProxy) requireHttps(request, isTrustedProxy);
      checkFhirNegotiation(request);
      if (FHIR_PUBLIC_PATHS.has(routedPath(request))) return undefined;
      return guardPartnerRequest(ctx, request, reply);
    }
    // Api-Version, and a deprecated route's Deprecation/Sunset/Link, on every answer of the APIs (refusals too).
    announceApiVersion(request, reply);
    if (behindProxy) requireHttps(request, isTrustedProxy);
    // The token endpoint authenticates its client itself and takes a form, not JSON (oauth/oauth.routes.ts).
    if (area === 'oauth') return undefined;
    const guarded = area === 'partner' ? guardPartnerRequest(ctx, request, reply) : guardOperatorRequest(ctx, request, reply);
    return guarded.then(() => {
      // A pin this server cannot answer is a 400; a deprecated route's use is counted for the credential.
      acceptApiVersion(ctx, request, reply);
      checkContentNegotiation(request);
    });
  };
  app.addHook('onRequest', (request, reply, done) => {
    let guarded: Promise<void> | undefined;
    try {
      guarded = admit(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (guarded === undefined) done();
    else
      guarded.then(() => {
        done();
      }, done);
  });

  await app.register(swagger, openApiDocument(ctx.config));
  // In production partners see their API only; the operator's routes are at /docs/operator, behind the guard.
  const partnerOnly = ctx.config.env === 'production';
  await app.register(swaggerUi, {
    ...referencePage('Partner Healthcare Fulfillment API'),
    routePrefix: '/docs',
    ...(partnerOnly ? { transformSpecification: (document) => partnerDocument(document) } : {}),
  });
  // In a context of its own: swagger-ui decorates its instance (swaggerCSP) once.
  await app.register(async (operatorDocs) => {
    await operatorDocs.register(swaggerUi, {
      ...referencePage('Partner Healthcare Fulfillment API: operator reference'),
      routePrefix: OPERATOR_DOCS_PREFIX,
    });
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => (partnerOnly ? partnerDocument(app.swagger()) : app.swagger()));

  await registerRoutes(app, ctx);
  await registerConsole(app);

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(
        request,
        reply,
        new AppError('METHOD_NOT_ALLOWED', 405, `Method ${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`),
      );
    }
    // The path is repeated at most in part: a URL can be as long as the headers allow (16 KiB).
    const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
    const near = nearestPartnerRoute(routes.list(), request.method, path);
    const hint = near === undefined ? '' : `; did you mean ${near}?`;
    return sendError(request, reply, new AppError('NOT_FOUND', 404, `Route ${request.method} ${shown} not found${hint}`));
  });

  await app.ready();
  return app;
}

/**
 * The reference page (swagger-ui) under the product's own title, without a stock logo: the base
 * layout has no top bar (where swagger-ui puts Fastify's logo, or its own, and a URL field); the
 * document's own title heads the page.
 */
function referencePage(title: string): FastifySwaggerUiOptions {
  return { staticCSP: DOCS_CSP, theme: { title }, uiConfig: { layout: 'BaseLayout' } };
}
