import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, forbidden, unauthorized } from '../errors.js';
import { partnerUserOfSession } from '../portal/partner-user.service.js';
import { addressBucketOf, clientAddress } from './client-address.js';
import { requestCookie } from './cookies.js';
import type { WindowCount } from './rate-limit-store.js';
import { ownOrigin } from './request-host.js';

/** The partner portal's session cookie (portal/portal-session.routes.ts sets it at sign-in). */
export const PORTAL_SESSION_COOKIE = 'portal_session';

/** Failed portal authentications one client address may make per minute; past them, 429. */
export const PORTAL_FAILURE_LIMIT = 20;
const WINDOW_MS = 60_000;

/** The portal routes that need no session: signing in, and an invitation's page and acceptance. */
const OPEN_ROUTES = new Set([
  'POST /api/portal/session',
  'GET /api/portal/invitations/:token',
  'POST /api/portal/invitations/accept',
]);

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every /api/portal request (issue 22; docs/portal.md): the portal's session cookie, whose account
 * belongs to one clinic (set as `request.partnerUser`; the routes read that clinic only). As the
 * console's guard (http/operator-guard.ts): a request that changes something must come from this
 * server's origin (the cookie is SameSite=Strict as well), and failed attempts are limited per client
 * address, counted before the credential is read and taken back once it proves right.
 */
export async function guardPortalRequest(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  if (!READS.has(request.method)) requireOwnOrigin(ctx, request);
  if (OPEN_ROUTES.has(route)) return;
  const succeeded = await admitPortalAttempt(ctx, request, reply);
  const token = requestCookie(request, PORTAL_SESSION_COOKIE);
  if (!token) throw unauthorized('sign in to the partner portal (/portal) first');
  const user = await partnerUserOfSession(ctx, token);
  if (!user) throw unauthorized('your session has ended (signed out, idle too long, or past 12 hours): sign in again');
  await succeeded();
  request.partnerUser = user;
}

/**
 * Counts one attempt of this client address as a failure, or refuses it (429) past the limit;
 * answers the function that takes the count back once the attempt proves right. Sign-in counts too.
 */
export async function admitPortalAttempt(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<() => Promise<void>> {
  const now = ctx.clock().getTime();
  const bucket = `portal-fail:${addressBucketOf(clientAddress(request))}`;
  const failures = await ctx.rateLimitStore.hit(bucket, WINDOW_MS, now);
  if (failures.count > PORTAL_FAILURE_LIMIT) throw rejection(ctx, reply, failures, now);
  return () => ctx.rateLimitStore.release(bucket, WINDOW_MS, now);
}

/**
 * Cross-site request forgery: a change made with the session cookie must carry this server's
 * `Origin` (every browser sends it on such requests). The open routes (sign-in, invitations) are
 * checked too: a forged page must not sign a browser in to an account of the forger's.
 */
function requireOwnOrigin(ctx: AppContext, request: FastifyRequest): void {
  if (request.headers.origin !== ownOrigin(request, ctx.config.trustForwardedHost)) {
    throw forbidden('Cross-origin request refused: a portal request must come from the portal\u2019s own origin');
  }
}

function rejection(ctx: AppContext, reply: FastifyReply, window: WindowCount, now: number): AppError {
  ctx.metrics.rateLimitRejections.inc({ bucket: 'portal' });
  const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  reply.header('Retry-After', retryAfter);
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    429,
    `Too many failed portal sign-ins or sessions from this address: ${PORTAL_FAILURE_LIMIT} a minute; retry after ${retryAfter} seconds`,
    undefined,
    { retry_after: retryAfter },
  );
}
