import { UNMATCHED_ROUTE } from '../contracts/route-label.js';
import { clientAddress } from './client-address.js';

/**
 * How errors (and, below, requests) appear in the logs, for the server (Fastify's logger) and the
 * standalone worker alike.
 *
 * Why not pino's default `err` serializer: it copies every enumerable property of the error, and
 * database drivers put row data there. A PostgreSQL constraint violation carries
 * `detail: "Failing row contains (…name, date of birth, address…)"` plus `where`, `table`, `column`,
 * `constraint`; other drivers attach the query's `parameters`. That is protected health information,
 * and logs are not a place for it. So a logged error keeps only what identifies the failure:
 *
 *   { type, message, code?, stack, cause?, aggregateErrors? }
 *
 * `cause` (and the errors of an AggregateError, such as a refused connection to each address of a
 * host) get the same shape, to a bounded depth and count, so that a loop cannot hang the logger.
 */

// eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- a type, not an interface: Fastify's serializer type wants an object with an index signature
export type LoggedError = {
  type: string;
  message: string;
  code?: string | number;
  /** The error's stack; for a thrown value that has none, just its `type: message` line. */
  stack: string;
  cause?: LoggedError;
  aggregateErrors?: LoggedError[];
};

const MAX_DEPTH = 5;
const MAX_AGGREGATED = 10;

/** pino serializer for the `err` key (and for an Error passed as the first argument). */
export function errorForLog(value: unknown): LoggedError {
  return describe(value, 0);
}

// eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- a type, not an interface: Fastify's serializer type wants an object with an index signature
export type LoggedRequest = {
  method: string;
  /** The route pattern (`/api/external/patient/:patientId`), or `unmatched`: never the URL. */
  route: string;
  remoteAddress?: string;
};

/**
 * pino serializer for the `req` key (Fastify's "incoming request" line). Fastify's own logs the raw
 * URL, and a URL is client input that can carry anything: a name where an id belongs
 * (`/patient/Vantongeren`), a search the API does not have (`?last_name=…&email=…`). So a request is
 * logged by its method, the route pattern it matched and the client address; which record it
 * touched is the audit trail's business, found by the request id. Headers are never logged
 * (credentials: `x-api-key`, `authorization`, `cookie`), nor is the body (PHI).
 */
export function requestForLog(value: unknown): LoggedRequest {
  const request = (value ?? {}) as {
    method?: unknown;
    ip?: unknown;
    socket?: { remoteAddress?: string };
    routeOptions?: { url?: unknown };
  };
  return {
    method: typeof request.method === 'string' ? request.method : 'UNKNOWN',
    route: typeof request.routeOptions?.url === 'string' ? request.routeOptions.url : UNMATCHED_ROUTE,
    ...(typeof request.ip === 'string' && request.socket
      ? { remoteAddress: clientAddress({ ip: request.ip, socket: request.socket }) }
      : {}),
  };
}

/** The serializers of every pino logger of the service. */
export const logSerializers = { err: errorForLog, req: requestForLog };

/**
 * Credentials censored wherever a log call puts request headers (the serializers above never do:
 * this guards a future `log.info({ headers })`). pino redacts after serializing.
 */
export const LOG_REDACT_PATHS = ['authorization', 'x-api-key', 'cookie', 'set-cookie'].flatMap((header) =>
  ['headers', 'req.headers', 'request.headers', 'res.headers'].map((at) => `${at}["${header}"]`),
);

function describe(value: unknown, depth: number): LoggedError {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    const type = value === null ? 'null' : typeof value;
    return { type, message: String(value), stack: `${type}: ${String(value)}` };
  }
  const error = value as {
    constructor?: unknown;
    name?: unknown;
    message?: unknown;
    code?: unknown;
    stack?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  const type =
    typeof error.constructor === 'function' && error.constructor.name !== ''
      ? error.constructor.name
      : typeof error.name === 'string'
        ? error.name
        : 'Error';
  const rawMessage = typeof error.message === 'string' ? error.message : '';
  const message = withoutQuotedJson(rawMessage);
  // The stack's first line repeats the message: the same words are withheld there.
  const stack =
    typeof error.stack !== 'string'
      ? `${type}: ${message}`
      : message === rawMessage
        ? error.stack
        : error.stack.replace(rawMessage, () => message);
  const out: LoggedError = {
    type,
    message,
    ...(typeof error.code === 'string' || typeof error.code === 'number' ? { code: error.code } : {}),
    stack,
  };
  if (depth < MAX_DEPTH) {
    if (error.cause !== undefined && error.cause !== null) out.cause = describe(error.cause, depth + 1);
    if (Array.isArray(error.errors) && error.errors.length > 0) {
      out.aggregateErrors = error.errors.slice(0, MAX_AGGREGATED).map((inner: unknown) => describe(inner, depth + 1));
    }
  }
  return out;
}

/**
 * V8's JSON.parse messages quote the text being parsed (`Unexpected token 'z', ..."value":zed.privat"...
 * is not valid JSON`), which for a stored value is row data: the quote is withheld. Messages that only
 * give a position (`... in JSON at position 24`) are kept as they are.
 */
function withoutQuotedJson(message: string): string {
  return message.endsWith('is not valid JSON') ? 'Invalid JSON (the parser quoted the input: withheld from the logs)' : message;
}
