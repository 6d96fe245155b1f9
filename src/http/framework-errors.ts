import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runInBackground } from '../background.js';
import type { AppContext } from '../context.js';
import { AppError, type ErrorCode } from '../errors.js';
import { answeringVersion, API_VERSION_HEADER } from './api-version.js';
import { areaOfPath } from './areas.js';
import { sendError, toAppError } from '../contracts/error-handler.js';
import { guardPartnerRequest } from './partner-guard.js';
import { logAnsweredRequest } from './request-log.js';
import { observeRequest } from './request-metrics.js';
import { applyBaselineSecurityHeaders, BASELINE_SECURITY_HEADERS } from './security-headers.js';

/**
 * Fastify's `frameworkErrors`: requests the router refuses before any hook runs (a broken
 * percent-escape, an over-long path parameter) get the same envelope and X-Request-Id as
 * everything else. Partner paths are still authenticated and counted first, so that such a request
 * gets the same 401 / 429 and rate-limit headers as any other.
 */
export function answerBeforeRouting(ctx: AppContext) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    runInBackground(answerRefusal(ctx, error, request, reply), (failure) => {
      request.log.error({ err: failure }, 'a request refused by the router could not be answered');
      if (!reply.sent) sendError(request, reply, new AppError('INTERNAL_ERROR', 500, 'Internal server error'));
    });
  };
}

async function answerRefusal(ctx: AppContext, error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('X-Request-Id', request.id);
  // No hook runs before the router's refusal: helmet's headers are not there.
  applyBaselineSecurityHeaders(reply);
  let refusal = routerRefusal(error);
  const area = areaOfPath(request.url.split('?')[0] ?? '/');
  if (area !== 'public' && area !== 'carrier') reply.header(API_VERSION_HEADER, answeringVersion(request));
  try {
    if (area === 'partner') await guardPartnerRequest(ctx, request, reply);
  } catch (guardError) {
    refusal = toAppError(guardError);
  }
  sendError(request, reply, refusal);
  // The router refused it before any hook: onResponse, which counts and logs every other request, never runs.
  observeRequest(ctx.metrics, request, reply);
  logAnsweredRequest(request, reply);
}

function routerRefusal(error: FastifyError): AppError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('VALIDATION_ERROR', 400, 'Malformed URL: invalid percent-encoding in the path', {
        path: 'has invalid percent-encoding',
      });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('VALIDATION_ERROR', 400, 'Malformed URL: a path segment is longer than 100 characters', {
        path: 'has a segment longer than 100 characters',
      });
    default:
      return toAppError(error);
  }
}

const RAW_SECURITY_HEADERS = Object.entries(BASELINE_SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/**
 * Fastify's `clientErrorHandler`, for what Node would otherwise answer itself on the raw socket: a
 * request that is not valid HTTP (400), headers over 16 KiB (431), or a client too slow to send its
 * headers or its whole request (408, HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS). Answered with the
 * same envelope where an answer can still be written (nothing of a response has been sent on the
 * connection), then the connection is closed, as Node itself does.
 */
export function answerUnparsableRequest(this: FastifyInstance, error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message]: [number, ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'VALIDATION_ERROR', 'Request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'The request was not received in time']
        : [400, 'VALIDATION_ERROR', 'Malformed HTTP request'];
  const requestId = randomUUID();
  // Only the code: the error may carry the raw bytes received (`rawPacket`), which can hold PHI.
  this.log.info({ reqId: requestId, code, status, reason: error.code }, 'connection closed before routing');
  // A response of this connection already under way (the socket's current ServerResponse sent its
  // head): writing another would corrupt it, so the connection is only closed.
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const body = JSON.stringify({ success: false, error: { message, code, request_id: requestId } });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n${RAW_SECURITY_HEADERS}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * HTTP rules Node would enforce itself with an empty answer of its own, checked in our onRequest hook
 * so that the refusal is in the envelope, with X-Request-Id, logged and counted: HTTP/1.1 requires a
 * Host header (Node's `requireHostHeader` is off: server-timeouts.ts), and an `Expect` other than
 * `100-continue` cannot be met (Node hands those to us: `passExpectations`).
 */
export function checkHttpRules(request: FastifyRequest): void {
  const raw = request.raw;
  if (raw.httpVersion === '1.1' && !raw.headers.host) {
    throw new AppError('VALIDATION_ERROR', 400, 'Validation failed: Host is required', { Host: 'is required' });
  }
  const expect = raw.headers.expect;
  if (expect !== undefined && expect.toLowerCase() !== '100-continue') {
    throw new AppError('EXPECTATION_FAILED', 417, 'Expectation failed: only Expect: 100-continue is supported', {
      Expect: 'must be 100-continue or absent',
    });
  }
}

/**
 * Node answers a request whose `Expect` is not `100-continue` with an empty 417 of its own unless
 * something listens for it: hand it to Fastify as any other request (`checkHttpRules` refuses it).
 */
export function passExpectations(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    server.emit('request', request, response),
  );
}
