import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import { RequestValidationError } from './validation.js';

interface ErrorBody {
  success: false;
  error: { message: string; code: ErrorCode; details?: Record<string, string>; request_id: string; [extra: string]: unknown };
}

/** Builds the spec's error envelope, always with the request id; the error is kept on the request for its request log entry. */
export function errorBody(request: FastifyRequest, error: AppError): ErrorBody {
  request.answeredError = error;
  return {
    success: false,
    error: {
      message: error.message,
      code: error.code,
      ...(error.details ? { details: error.details } : {}),
      ...(error.extra ?? {}),
      request_id: request.id,
    },
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(errorBody(request, error));
}

/**
 * The one place where anything thrown becomes the spec's error envelope. Unknown errors are
 * logged with the request id (without driver row data: see http/logging.ts) and answered as
 * INTERNAL_ERROR without internals.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof RequestValidationError) {
    return new AppError('VALIDATION_ERROR', 400, error.message, error.details);
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 413, 'Payload too large: request bodies are limited to 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return fastifyError.statusCode === 415
        ? new AppError('UNSUPPORTED_MEDIA_TYPE', 415, 'Unsupported media type: send the body as application/json')
        : new AppError('VALIDATION_ERROR', 400, 'Invalid Content-Length header');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return malformedJson();
    default:
      break;
  }
  // No `instanceof SyntaxError` here: body parse failures arrive as AppError (json-body.ts) or as
  // the codes above; any other SyntaxError (a stored value that fails to parse, a bug) is ours: a 500.
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Client errors raised by Fastify itself (bad headers, aborted bodies...).
    return new AppError(status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR', status === 404 ? 404 : 400, 'Bad request');
  }
  return new AppError('INTERNAL_ERROR', 500, 'Internal server error');
}

function malformedJson(): AppError {
  return new AppError('VALIDATION_ERROR', 400, 'Malformed JSON in request body', { body: 'must be valid JSON' });
}

/**
 * Runs before a refusal is answered, and may make it wait (never change it): the denied-access
 * audit of a partner's 404 (http/denied-access.ts). Undefined when it has nothing to do.
 */
export type RefusalObserver = (request: FastifyRequest, error: AppError) => Promise<void> | undefined;

export function registerErrorHandler(app: FastifyInstance, observeRefusal?: RefusalObserver): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.statusCode >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'request failed');
    } else {
      request.log.info({ code: appError.code, status: appError.statusCode }, 'request refused');
    }
    const observed = observeRefusal?.(request, appError);
    if (observed === undefined) return sendError(request, reply, appError);
    // Fastify sends what an error handler's promise resolves to, once: the same envelope as sendError's.
    return observed.then(() => {
      reply.code(appError.statusCode).type('application/json; charset=utf-8');
      return errorBody(request, appError);
    });
  });
}
