import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { runInBackground } from '../background.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { areaOfPath } from './areas.js';
import { sendError, toAppError } from './error-handler.js';
import { guardPartnerRequest } from './partner-guard.js';
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
  try {
    if (areaOfPath(request.url.split('?')[0] ?? '/') === 'partner') await guardPartnerRequest(ctx, request, reply);
  } catch (guardError) {
    refusal = toAppError(guardError);
  }
  sendError(request, reply, refusal);
  // The router refused it before any hook: onResponse, which counts every other request, never runs.
  observeRequest(ctx.metrics, request, reply);
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
 * Fastify's `clientErrorHandler`: a request that is not even valid HTTP (a garbled request line,
 * headers too large) is answered on the raw socket with the same envelope, then the connection is
 * closed, as Node itself does.
 */
export function answerUnparsableRequest(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time']
        : [400, 'Malformed HTTP request'];
  const requestId = randomUUID();
  const body = JSON.stringify({ success: false, error: { message, code: 'VALIDATION_ERROR', request_id: requestId } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n${RAW_SECURITY_HEADERS}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
