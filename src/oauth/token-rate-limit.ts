import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { OAuthError } from './oauth-errors.js';

/** Failed token requests allowed per minute, per client address and per client id; past them, 429. */
export const TOKEN_FAILURE_LIMIT = 20;
const WINDOW_MS = 60_000;

/**
 * The token endpoint's brute-force limit, in the shared rate-limit store (so it holds across instances
 * on Redis), as the operator guard's: each attempt is counted as a failure before any credential is
 * read, and the returned function takes the count back once the client has authenticated. Over the
 * limit, the attempt is refused with 429 (and Retry-After) without a query or a comparison.
 */
export async function admitTokenAttempt(
  ctx: Pick<AppContext, 'clock' | 'rateLimitStore' | 'metrics'>,
  reply: FastifyReply,
  bucket: { kind: 'address' | 'client'; id: string },
): Promise<() => Promise<void>> {
  const now = ctx.clock().getTime();
  const name = `oauth-fail:${bucket.kind}:${bucket.id}`;
  const failures = await ctx.rateLimitStore.hit(name, WINDOW_MS, now);
  if (failures.count > TOKEN_FAILURE_LIMIT) {
    ctx.metrics.rateLimitRejections.inc({ bucket: 'oauth_token' });
    const retryAfter = Math.max(1, Math.ceil((failures.resetAt - now) / 1000));
    reply.header('Retry-After', retryAfter);
    throw new OAuthError(
      'invalid_request',
      429,
      `Too many failed token requests ${bucket.kind === 'address' ? 'from this address' : 'for this client'}: ${TOKEN_FAILURE_LIMIT} a minute; retry after ${retryAfter} seconds`,
    );
  }
  return () => ctx.rateLimitStore.release(name, WINDOW_MS, now);
}
