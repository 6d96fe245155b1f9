import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/**
 * The spec requires JSON both ways. A request that carries a body must say
 * `Content-Type: application/json` (415 otherwise); an `Accept` header, when present, must allow
 * JSON (406 otherwise). A request without a body is never refused for its content type.
 */
export function checkContentNegotiation(request: FastifyRequest): void {
  const accept = request.headers.accept;
  if (accept !== undefined && accept.trim() !== '' && !acceptsJson(accept)) {
    throw new AppError('NOT_ACCEPTABLE', 406, 'Not acceptable: this API responds with application/json only');
  }
  if (hasBody(request)) {
    const type = request.headers['content-type'];
    if (type === undefined || !isJsonMediaType(type)) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        415,
        `Unsupported media type: send the body as application/json${type ? ` (got ${type.split(';')[0] ?? type})` : ''}`,
      );
    }
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return request.headers['transfer-encoding'] !== undefined;
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

/** True when an Accept header admits application/json with a non-zero quality. */
export function acceptsJson(accept: string): boolean {
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) return false;
    return type === 'application/json' || type === 'application/*' || type === '*/*';
  });
}
