import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey } from '../clinics/clinic.service.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on /api/external requests once the API key is accepted. */
    partner?: PartnerIdentity;
  }
}

const WINDOW_MS = 60_000;

/**
 * Authenticates and rate-limits a partner request. The limit is counted per API key for a valid
 * key, and per client address otherwise, so that 401s are limited too. Every response, refusals
 * included, carries the X-RateLimit-* headers.
 */
export async function guardPartnerRequest(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  let identity: PartnerIdentity | undefined;
  let authError: unknown;
  try {
    identity = await authenticateApiKey(ctx, key);
  } catch (error) {
    authError = error;
  }

  const bucket = identity ? `key:${identity.apiKeyId}` : `ip:${request.ip}`;
  const limit = ctx.config.rateLimitPerMinute;
  const now = ctx.clock().getTime();
  const { count, resetAt } = await ctx.rateLimitStore.hit(bucket, WINDOW_MS, now);
  const resetSeconds = Math.ceil(resetAt / 1000);
  reply.header('X-RateLimit-Limit', limit);
  reply.header('X-RateLimit-Remaining', Math.max(0, limit - count));
  reply.header('X-RateLimit-Reset', resetSeconds);

  if (count > limit) {
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
    reply.header('Retry-After', retryAfter);
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      429,
      `Rate limit exceeded: ${limit} requests per minute; retry after ${retryAfter} seconds`,
      undefined,
      { retry_after: retryAfter },
    );
  }
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what authenticateApiKey threw
  if (authError !== undefined) throw authError;
  request.partner = identity;
}

/** The authenticated partner of a request; routes behind the guard can rely on it. */
export function partnerOf(request: FastifyRequest): PartnerIdentity {
  if (!request.partner) throw new AppError('UNAUTHORIZED', 401, 'Unauthorized: missing x-api-key header');
  return request.partner;
}
