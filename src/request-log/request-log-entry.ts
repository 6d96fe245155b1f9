import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError, ErrorCode } from '../errors.js';
import { UNMATCHED_ROUTE } from '../contracts/route-label.js';
import type { RequestLogTable } from './request-log.tables.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error a request was answered with (contracts/error-handler.ts), for its request log row. */
    answeredError?: AppError;
  }
}

/** The partner route whose successful answers are not logged: reading the log must not fill it. */
export const REQUEST_LOG_ROUTE = '/api/external/requests';

/**
 * One answered request as the onResponse hook captures it: plain values only, nothing formatted
 * (the time as a number, the error as it was thrown), so that the request's own path pays a few
 * property reads; the row is built when the batch is written (`toRow`).
 */
export interface RequestLogEntry {
  readonly at: number;
  readonly clinicId: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
  readonly apiKeyId: string | null;
  readonly oauthClientId: string | null;
  readonly idempotencyKey: string | null;
  readonly error: AppError | null;
}

/**
 * The entry of an answered request, or null when it is not logged: a request refused before a
 * clinic was known (401; a 429, counted before the key is looked up) has no clinic's log to go to, and the
 * log's own successful reads are left out (a portal polling it would otherwise drown what it shows).
 *
 * What is kept is metadata only: the route template (never the URL, whose path and query can hold
 * PHI), the server's request id (never the client's X-Request-Id, a header that could hold anything),
 * the credential's id, the Idempotency-Key (already checked: at most 255 printable ASCII characters)
 * and the error's code, whose message is made safe when the row is built (`safeErrorMessage`).
 */
export function requestLogEntry(request: FastifyRequest, reply: FastifyReply, now: number): RequestLogEntry | null {
  const partner = request.partner;
  if (partner === undefined) return null;
  const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
  const status = reply.statusCode;
  if (route === REQUEST_LOG_ROUTE && status < 400) return null;
  return {
    at: now,
    clinicId: partner.clinicId,
    method: request.method,
    route,
    status,
    durationMs: Math.round(reply.elapsedTime),
    requestId: request.id,
    apiKeyId: partner.apiKeyId ?? null,
    oauthClientId: partner.oauthClientId ?? null,
    idempotencyKey: request.idempotency?.key ?? null,
    error: request.answeredError ?? null,
  };
}

/** The row of an entry, keyed by its request id (a UUIDv7 of the request's arrival: the purge deletes by it). */
export function toRow(entry: RequestLogEntry): RequestLogTable {
  return {
    request_id: entry.requestId,
    clinic_id: entry.clinicId,
    occurred_at: new Date(entry.at).toISOString(),
    method: entry.method,
    route: entry.route,
    status: entry.status,
    duration_ms: entry.durationMs,
    api_key_id: entry.apiKeyId,
    oauth_client_id: entry.oauthClientId,
    idempotency_key: entry.idempotencyKey,
    error_code: entry.error?.code ?? null,
    error_message: entry.error ? safeErrorMessage(entry.error) : null,
  };
}

/**
 * One fixed message per code. Error messages can echo what the request sent (a route's path in a
 * 404, a medication's name in a 409, an unknown field's name in a 400), and what a request sent can
 * be PHI: the log keeps none of it, only these, and for the two codes below a little more that is
 * the server's own words.
 */
const SAFE_MESSAGES: Record<ErrorCode, string> = {
  VALIDATION_ERROR: 'Validation failed',
  UNAUTHORIZED: 'Unauthorized',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict with the current state of the resource',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency-Key already used with a different request',
  METHOD_NOT_ALLOWED: 'Method not allowed on this route',
  NOT_ACCEPTABLE: 'Not acceptable: the API answers application/json',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type: send application/json',
  REQUEST_TIMEOUT: 'Request timeout',
  EXPECTATION_FAILED: 'Expectation failed',
  RATE_LIMIT_EXCEEDED: 'Rate limit exceeded',
  INTERNAL_ERROR: 'Internal server error',
  SERVICE_UNAVAILABLE: 'Service unavailable',
  STATE_NOT_LICENSED: 'The pharmacy is not licensed to ship to the patient\u2019s state',
  PRESCRIBER_NOT_LICENSED: 'The prescriber holds no unexpired licence in the patient\u2019s state',
};

/** A field path the server's schemas name (`addresses[0].state`, `Idempotency-Key`): letters, digits, `_ - . [ ]`. */
const FIELD_PATH = /^[A-Za-z0-9_.[\]-]{1,100}$/;
/** The scope guard's refusal (http/scope-guard.ts): the server's words and a scope of its vocabulary. */
const SCOPE_REFUSAL = /^Forbidden: this (API key|access token) lacks the scope [a-z]+:(read|write)$/;
const MAX_FIELDS = 10;

/**
 * The message a log row keeps for an error: the code's fixed message; for a validation error, the
 * invalid fields the route's schema names (an unknown field is counted, never named: its name is the
 * caller's text); for a scope refusal, the scope lacking.
 */
export function safeErrorMessage(error: AppError): string {
  if (error.code === 'FORBIDDEN' && SCOPE_REFUSAL.test(error.message)) return error.message;
  const fixed = SAFE_MESSAGES[error.code];
  if (error.code !== 'VALIDATION_ERROR' || error.details === undefined) return fixed;
  const named: string[] = [];
  let unknown = 0;
  for (const [field, problem] of Object.entries(error.details)) {
    if (problem.startsWith('is not a known field') || !FIELD_PATH.test(field)) unknown += 1;
    else if (named.length < MAX_FIELDS) named.push(field);
  }
  const parts = [
    ...(named.length > 0 ? [`invalid: ${named.join(', ')}`] : []),
    ...(unknown > 0 ? [`${unknown} unknown field${unknown === 1 ? '' : 's'}`] : []),
  ];
  return parts.length > 0 ? `${fixed} (${parts.join('; ')})` : fixed;
}
