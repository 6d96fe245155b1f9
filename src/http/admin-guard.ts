import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, unauthorized } from '../errors.js';
import { addressBucketOf, clientAddress } from './client-address.js';
import type { WindowCount } from './rate-limit-store.js';

/** Failed operator authentications one client address may make per minute; past them, 429. */
export const OPERATOR_FAILURE_LIMIT = 20;
const WINDOW_MS = 60_000;

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` on every /api/admin and /metrics request, compared in
 * constant time, with failed attempts limited per client address.
 *
 * Every attempt is counted as a failure before the token is even read, and taken back once it
 * proves right: an address over its limit is refused without a comparison, the right token
 * included, and concurrent guesses cannot all slip past a check made before any of them failed.
 * A success only takes back its own count and does not clear earlier failures: otherwise a guesser
 * behind the same address (NAT, proxy) as the operator would get fresh attempts at every operator call.
 *
 * @see docs/operators.md "Operator API"
 */
export async function guardAdminRequest(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const now = ctx.clock().getTime();
  const bucket = `admin-fail:${addressBucketOf(clientAddress(request))}`;
  const failures = await ctx.rateLimitStore.hit(bucket, WINDOW_MS, now);
  if (failures.count > OPERATOR_FAILURE_LIMIT) throw rejection(ctx, reply, failures, now);

  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  if (!match?.[1]) throw unauthorized('missing operator bearer token');
  if (!constantTimeEqual(match[1], ctx.config.adminToken)) throw unauthorized('invalid operator token');
  await ctx.rateLimitStore.release(bucket, WINDOW_MS, now);
}

/** The 429 (with Retry-After), counted in rate_limit_rejections_total as bucket `operator`. */
function rejection(ctx: AppContext, reply: FastifyReply, window: WindowCount, now: number): AppError {
  ctx.metrics.rateLimitRejections.inc({ bucket: 'operator' });
  const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  reply.header('Retry-After', retryAfter);
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    429,
    `Too many failed operator authentications from this address: ${OPERATOR_FAILURE_LIMIT} a minute; retry after ${retryAfter} seconds`,
    undefined,
    { retry_after: retryAfter },
  );
}

function constantTimeEqual(a: string, b: string): boolean {
  // Hash first so that the comparison takes the same time whatever the lengths.
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
