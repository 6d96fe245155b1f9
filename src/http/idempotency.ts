import { recordReplayReads } from '../audit/audit.service.js';
import { partnerAudit } from './audit-context.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, conflict } from '../errors.js';
import {
  claimIdempotencyKey,
  completeIdempotentRequest,
  releaseIdempotencyKey,
  type Claim,
} from '../idempotency/idempotency.service.js';
import { requestFingerprint } from '../idempotency/request-fingerprint.js';
import { areaOfPath } from './areas.js';
import { IDEMPOTENCY_KEY_HEADER, ORIGINAL_REQUEST_ID_HEADER, readIdempotencyKey, REPLAYED_HEADER } from './idempotency-key.js';
import { partnerOf } from './partner-guard.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on a partner POST that sent an Idempotency-Key; `claim` once this request holds the key. */
    idempotency?: { key: string; claim?: Claim };
  }
}

/** Every partner POST takes an Idempotency-Key (and the OpenAPI document says so: openapi.ts). */
export function isIdempotentRoute(method: string | string[], url: string): boolean {
  const methods = Array.isArray(method) ? method : [method];
  return methods.includes('POST') && areaOfPath(url) === 'partner';
}

/**
 * Idempotency keys on every partner POST, present and future: an onRoute hook gives each such
 * route three hooks of its own, which run after the app's guards (so a 401 or 429 is answered
 * before, and never stored). Routes without the header pay one header lookup and no query.
 *
 * - onRequest: reads and checks the header (400 before the body is parsed).
 * - preHandler (after the body is validated): claims the key, or answers the stored response
 *   again, or refuses (422 another request with this key, 409 still running).
 * - onSend (before the response leaves): stores a claimed request's response, unless it is a 5xx,
 *   which frees the key instead. Storing before sending means that a client which got the answer
 *   and retries at once, on any instance, gets the replay.
 *
 * Requests refused before their handler (schema validation, malformed JSON) claim nothing: they
 * changed nothing, and a retry is checked again. See docs/idempotency.md.
 */
export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRoute', (route) => {
    if (!isIdempotentRoute(route.method, route.url)) return;
    const scope = `POST ${route.url}`;
    route.onRequest = [...hooksOf(route.onRequest), readKey];
    route.preHandler = [...hooksOf(route.preHandler), claimKey(ctx, scope)];
    route.onSend = [...hooksOf(route.onSend), storeResponse(ctx)];
  });
}

async function readKey(request: FastifyRequest): Promise<void> {
  const key = readIdempotencyKey(request.headers['idempotency-key']);
  if (key !== undefined) request.idempotency = { key };
}

function claimKey(ctx: AppContext, route: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const state = request.idempotency;
    if (!state) return undefined;
    const scope = { clinicId: partnerOf(request).clinicId, route, key: state.key };
    const hash = requestFingerprint({ params: request.params, body: request.body });
    const outcome = await claimIdempotencyKey(ctx, scope, hash, request.id);
    switch (outcome.kind) {
      case 'claimed':
        state.claim = outcome.claim;
        return undefined;
      case 'replay': {
        const { status, contentType, body } = outcome.response;
        request.log.info({ idempotency: 'replayed', status }, 'idempotent request replayed');
        await recordReplayReads(ctx, partnerAudit(request), scope.clinicId, outcome.originalRequestId);
        reply.code(status).header(REPLAYED_HEADER, 'true').header(ORIGINAL_REQUEST_ID_HEADER, outcome.originalRequestId);
        if (contentType !== null) reply.header('content-type', contentType);
        // A string payload with a JSON content type is sent as is: the stored bytes, not re-serialized.
        return reply.send(body);
      }
      case 'mismatch':
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          422,
          `${IDEMPOTENCY_KEY_HEADER} was already used with a different request to this endpoint in the last 24 hours; send a new key for a new request`,
          { [IDEMPOTENCY_KEY_HEADER]: 'was already used with a different body or path' },
        );
      case 'executed_unanswered':
        throw conflict(
          `The request first sent with this ${IDEMPOTENCY_KEY_HEADER} was carried out, but its answer was lost when the server stopped; it is not run again: read the result with a GET`,
          { [IDEMPOTENCY_KEY_HEADER]: 'belongs to a request that was carried out and whose answer was lost' },
        );
      case 'in_flight':
        reply.header('Retry-After', 1);
        throw conflict(
          `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry once it has completed to get its response`,
          { [IDEMPOTENCY_KEY_HEADER]: 'is in use by a request still being processed' },
        );
    }
  };
}

function storeResponse(ctx: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const claim = request.idempotency?.claim;
    if (!claim) return payload;
    // Once: if this hook fails, the error handler sends again through it.
    delete request.idempotency?.claim;
    try {
      if (reply.statusCode >= 500 || typeof payload !== 'string') {
        await releaseIdempotencyKey(ctx, claim);
      } else {
        const contentType = reply.getHeader('content-type');
        await completeIdempotentRequest(ctx, claim, {
          status: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body: payload,
        });
      }
    } catch (error) {
      // The answer still goes out: the change is committed and the partner must learn its result. The
      // key was marked carried out with the change, so a retry is refused, never run again (docs/idempotency.md).
      request.log.error({ err: error }, 'could not store the idempotent response');
    }
    return payload;
  };
}

/** A route's own hooks of one kind, as a list (Fastify takes a function or an array). */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}
