import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Media types the route answers besides JSON, when the Accept header prefers them (the recall's `text/csv`). */
    alsoProduces?: readonly string[];
  }
}

/**
 * The spec requires JSON both ways. A request that carries a body must say
 * `Content-Type: application/json` (415 otherwise); an `Accept` header, when present, must allow
 * JSON, or a type the route also produces (`config.alsoProduces`), 406 otherwise. A request without
 * a body is never refused for its content type.
 */
export function checkContentNegotiation(request: FastifyRequest): void {
  const accept = request.headers.accept;
  const others = request.routeOptions.config.alsoProduces ?? [];
  if (
    accept !== undefined &&
    accept.trim() !== '' &&
    !acceptsJson(accept) &&
    !others.some((type) => qualityOf(accept, type) > 0)
  ) {
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

/**
 * Which of `offered` the Accept header prefers (RFC 9110 §12.5.1): each type takes the quality of
 * the most specific range that matches it; the highest wins, and a tie goes to the earlier offer
 * (JSON first: `*∕*` and no header mean JSON). Undefined when the header accepts none of them.
 */
export function preferredType<T extends string>(accept: string | undefined, offered: readonly T[]): T | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  let best: { type: T; q: number } | undefined;
  for (const type of offered) {
    const q = qualityOf(accept, type);
    if (q > 0 && (best === undefined || q > best.q)) best = { type, q };
  }
  return best?.type;
}

/** The quality the Accept header gives `type`: that of its most specific matching range, 0 if none. */
function qualityOf(accept: string, type: string): number {
  const family = `${type.split('/')[0] ?? ''}/*`;
  let found = { specificity: -1, q: 0 };
  for (const range of accept.split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const specificity = name === type ? 2 : name === family ? 1 : name === '*/*' ? 0 : -1;
    if (specificity <= found.specificity) continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    found = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return found.q;
}
