// The front every composite ceiling shares (issue 19, item 1): what the project does around each
// partner request, written plainly, in one hook each way.
//
// onRequest: the security headers and X-Request-Id every answer carries; Host/Expect and then
// Accept/Content-Type checked (the project's functions); the key's form, its digest counted in the
// rate limit (admitKey: memory, or one Redis round trip with BENCH_REDIS_URL) with the three
// X-RateLimit-* headers, then the key's row looked up by its SHA-256 (`SELECT * FROM api_keys WHERE
// key_hash = ?`, then hash compared in constant time, revoked and environment checked: the project's
// lookup and checks, src/clinics/clinic.service.ts), and the key marked known after its first success.
// Bodies go through the project's JSON parser and validator; answers through the route's response
// schema. onResponse: one pino line (the project's fields and redaction, asynchronous to standard
// output, which the benchmark sends to a file, as src/log-format.ts) and the request-duration
// histogram with the project's labels and buckets (prom-client's default metrics collected too).
//
// What it leaves out, and why: Fastify's per-request child logger (the line is the same without it);
// the idempotency hooks of partner POSTs (the benchmark sends no Idempotency-Key: they find nothing
// to do); the cookie parser (partner routes read no cookie: it is the console's); the HTTPS-behind-
// proxy check (TRUST_PROXY is unset in the benchmark: the project skips it too); the Connection:
// close of a server shutting down (it never is while measured).
import { Buffer } from 'node:buffer';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { URL } from 'node:url';
import process from 'node:process';
import Fastify from 'fastify';
import pino from 'pino';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { openDatabase } from './composite-db.js';
import { openRateLimitStore } from './composite-rate-limit.js';
import {
  addressBucketOf,
  AppError,
  BASELINE_SECURITY_HEADERS,
  checkContentNegotiation,
  checkHttpRules,
  clientAddress,
  HELMET_HEADERS,
  LOG_REDACT_PATHS,
  registerErrorHandler,
  registerJsonParser,
  validatorCompiler,
} from './project-modules.js';

/** The benchmark's server runs with RATE_LIMIT_PER_MINUTE=1000000 in development: so does the ceiling. */
const LIMIT = Number(process.env.RATE_LIMIT_PER_MINUTE ?? 1_000_000);
const ENVIRONMENT = 'development';
const KEY_PREFIXES = { development: 'dev_', production: 'prod_' };
const WINDOW_MS = 60_000;
const KNOWN_KEY_TTL_MS = 24 * 60 * 60_000;
const SECURITY_HEADERS = { ...HELMET_HEADERS, 'Cache-Control': BASELINE_SECURITY_HEADERS['Cache-Control'] };
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

const genReqId = (raw) => {
  const incoming = raw.headers['x-request-id'];
  return typeof incoming === 'string' && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
};

const unauthorized = (reason) => new AppError('UNAUTHORIZED', 401, `Unauthorized: ${reason}`);

function keyProblem(key) {
  if (key === undefined || key === '') return 'missing x-api-key header';
  const claimed = Object.keys(KEY_PREFIXES).find((environment) => key.startsWith(KEY_PREFIXES[environment]));
  if (claimed === undefined || key.length > 200) return 'invalid API key';
  if (claimed !== ENVIRONMENT) return `this is a ${claimed} key; this server is the ${ENVIRONMENT} environment`;
  return null;
}

function limitHeaders(reply, window) {
  reply.header('X-RateLimit-Limit', LIMIT);
  reply.header('X-RateLimit-Remaining', Math.max(0, LIMIT - window.count));
  reply.header('X-RateLimit-Reset', Math.ceil(window.resetAt / 1000));
}

function tooMany(reply, window, now) {
  const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  reply.header('Retry-After', retryAfter);
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    429,
    `Rate limit exceeded: ${LIMIT} requests per minute; retry after ${retryAfter} seconds`,
    undefined,
    { retry_after: retryAfter },
  );
}

/** Counts one failed authentication against the address, with its headers; throws `error` (or 429). */
async function refuse(store, reply, addressBucket, now, error) {
  const window = await store.hit(addressBucket, WINDOW_MS, now);
  limitHeaders(reply, window);
  if (window.count > LIMIT) throw tooMany(reply, window, now);
  throw error;
}

const hashesEqual = (a, b) => {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
};

/** Authenticates and rate-limits a partner request; sets `request.partner`. */
async function guard(request, reply, { db, store }) {
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  const now = Date.now();
  const addressBucket = `ip:${addressBucketOf(clientAddress(request))}`;
  const problem = keyProblem(key);
  if (problem !== null) await refuse(store, reply, addressBucket, now, unauthorized(problem));

  const digest = createHash('sha256').update('rate-limit\0').update(key, 'utf8').digest('hex').slice(0, 32);
  const admission = await store.admitKey({
    keyBucket: `key:${digest}`,
    addressBucket,
    knownMarker: `known:${digest}`,
    limit: LIMIT,
    windowMs: WINDOW_MS,
    now,
  });
  if (!admission.admitted) {
    limitHeaders(reply, admission.address);
    throw tooMany(reply, admission.address, now);
  }
  limitHeaders(reply, admission.key);
  if (admission.key.count > LIMIT) throw tooMany(reply, admission.key, now);

  const hash = createHash('sha256').update(key, 'utf8').digest('hex');
  const row = await db.one('bench_api_key_by_hash', 'SELECT * FROM api_keys WHERE key_hash = ?', [hash]);
  if (!row || !hashesEqual(row.key_hash, hash)) await refuse(store, reply, addressBucket, now, unauthorized('invalid API key'));
  if (row.revoked_at !== null) await refuse(store, reply, addressBucket, now, unauthorized('API key has been revoked'));
  if (row.environment !== ENVIRONMENT) {
    const reason = `this is a ${row.environment} key; this server is the ${ENVIRONMENT} environment`;
    await refuse(store, reply, addressBucket, now, unauthorized(reason));
  }
  if (!admission.known) await store.markKnown(`known:${digest}`, KNOWN_KEY_TTL_MS, now);
  request.partner = { clinicId: row.clinic_id, apiKeyId: row.id };
}

/**
 * Builds the ceiling, lets `register(app, { db })` add its one route, listens on 127.0.0.1 (PORT)
 * and prints `listening on <port>`; SIGTERM closes it. `register` may return a close step of its own.
 */
export async function startComposite(register) {
  const db = openDatabase();
  const store = await openRateLimitStore();
  const logger = pino({ redact: LOG_REDACT_PATHS }, pino.destination({ dest: 1, sync: false }));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const app = Fastify({ logger: false, genReqId });
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandler(app);
  registerJsonParser(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    reply.header('X-Request-Id', request.id);
    // The version that answers (issue 20): a constant header, as the project's partner answers carry.
    reply.header('Api-Version', '1.4.0');
    checkHttpRules(request);
    await guard(request, reply, { db, store });
    checkContentNegotiation(request);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const durationMs = Math.round(reply.elapsedTime * 10) / 10;
    const req = { method: request.method, route, remoteAddress: clientAddress(request) };
    logger.info({ reqId: request.id, req, statusCode: reply.statusCode, durationMs }, 'request completed');
    durations.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  const closeRoute = await register(app, { db });

  const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`listening on ${new URL(address).port}\n`);
  process.once('SIGTERM', () => {
    app
      .close()
      .then(() => closeRoute?.())
      .then(() => store.close())
      .then(() => db.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}

/** The authenticated partner of a request (set by the guard). */
export const partnerOf = (request) => request.partner;

/**
 * The clinic rule of a body's clinic id (`field`): the key's own clinic passes without a query;
 * an unknown clinic is a 400, another existing one a 403 (src/clinics/clinic.service.ts).
 */
export async function assertClinicScope(db, partner, requested, field) {
  if (requested === partner.clinicId) return;
  if (!(await db.one('bench_clinic_exists', 'SELECT id FROM clinics WHERE id = ?', [requested]))) {
    throw new AppError('VALIDATION_ERROR', 400, 'Clinic not found', { [field]: 'clinic not found' });
  }
  throw new AppError('FORBIDDEN', 403, `Forbidden: your API key does not give access to clinic ${requested}`);
}
