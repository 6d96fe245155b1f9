import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, forbidden, unauthorized } from '../errors.js';
import { orList } from '../shared/words.js';
import { rolesFor } from '../staff/operator-roles.js';
import { staffOfSession, type StaffIdentity } from '../staff/staff.service.js';
import type { StaffRole } from '../staff/staff.tables.js';
import { addressBucketOf, clientAddress } from './client-address.js';
import { requestCookie } from './cookies.js';
import { ownOrigin } from './request-host.js';
import type { WindowCount } from './rate-limit-store.js';

/** Failed operator authentications one client address may make per minute; past them, 429. */
export const OPERATOR_FAILURE_LIMIT = 20;
const WINDOW_MS = 60_000;

/** The console's session cookie (staff/staff.routes.ts sets it at sign-in). */
export const SESSION_COOKIE = 'fulfillment_session';

/** The one operator route that needs no credentials: signing in. */
const SIGN_IN_ROUTE = 'POST /api/admin/session';

/** What an admin who must turn on two-step sign-in (REQUIRE_ADMIN_TOTP) may still call. */
const SECOND_FACTOR_SETUP_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/admin/session',
  'DELETE /api/admin/session',
  'POST /api/admin/account/totp',
  'POST /api/admin/account/totp/confirm',
]);

/** Whether this staff member must still turn on two-step sign-in before using the console (REQUIRE_ADMIN_TOTP). */
export const totpRequired = (ctx: AppContext, staff: StaffIdentity): boolean =>
  ctx.config.requireAdminTotp && staff.role === 'admin' && !staff.totpEnabled;

/** Who is calling the operator API: the holder of ADMIN_TOKEN (an admin), or a signed-in staff member. */
export type Operator = { readonly kind: 'token' } | { readonly kind: 'staff'; readonly staff: StaffIdentity };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on /api/admin requests (and /metrics) once the credentials are accepted. */
    operator?: Operator;
  }
}

export const roleOf = (operator: Operator): StaffRole => (operator.kind === 'token' ? 'admin' : operator.staff.role);

/**
 * Every /api/admin and /metrics request: `Authorization: Bearer <ADMIN_TOKEN>` (compared in
 * constant time; automation and emergencies, acting as an admin), or the console's session cookie
 * (the staff member's role decides which routes; a state-changing request must come from the
 * server's own origin). Failed attempts are limited per client address.
 *
 * Every attempt is counted as a failure before any credential is even read, and taken back once it
 * proves right: an address over its limit is refused without a comparison, the right token
 * included, and concurrent guesses cannot all slip past a check made before any of them failed.
 * A success only takes back its own count and does not clear earlier failures: otherwise a guesser
 * behind the same address (NAT, proxy) as the operator would get fresh attempts at every operator call.
 *
 * @see docs/operators.md "Operator API", docs/console.md
 */
export async function guardOperatorRequest(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  if (route === SIGN_IN_ROUTE) {
    requireOwnOrigin(ctx, request, { required: false });
    return;
  }
  const succeeded = await admitOperatorAttempt(ctx, request, reply);
  const operator = await authenticate(ctx, request);
  await succeeded();
  request.operator = operator;

  if (operator.kind === 'staff' && !['GET', 'HEAD', 'OPTIONS'].includes(request.method)) {
    requireOwnOrigin(ctx, request, { required: true });
  }
  if (operator.kind === 'staff' && totpRequired(ctx, operator.staff) && !SECOND_FACTOR_SETUP_ROUTES.has(route)) {
    throw forbidden(
      'Two-step sign-in is required for admins here: turn it on first (Account in the console, or POST /api/admin/account/totp)',
    );
  }
  const allowed = rolesFor(request.method, request.routeOptions.url ?? '');
  if (!allowed.includes(roleOf(operator))) {
    throw forbidden(`This action needs the ${orList(allowed)} role; you are signed in as ${roleOf(operator)}`);
  }
}

/**
 * Counts one attempt of this client address as a failure, or refuses it (429) when the address has
 * used up its failures for the minute; answers the function that takes the count back once the
 * attempt proves right. The guard's credentials and the console's sign-in share the count.
 */
export async function admitOperatorAttempt(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<() => Promise<void>> {
  const now = ctx.clock().getTime();
  const bucket = `admin-fail:${addressBucketOf(clientAddress(request))}`;
  const failures = await ctx.rateLimitStore.hit(bucket, WINDOW_MS, now);
  if (failures.count > OPERATOR_FAILURE_LIMIT) throw rejection(ctx, reply, failures, now);
  return () => ctx.rateLimitStore.release(bucket, WINDOW_MS, now);
}

async function authenticate(ctx: AppContext, request: FastifyRequest): Promise<Operator> {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match?.[1]) throw unauthorized('missing operator bearer token');
    if (!constantTimeEqual(match[1], ctx.config.operatorToken)) throw unauthorized('invalid operator token');
    return { kind: 'token' };
  }
  const token = requestCookie(request, SESSION_COOKIE);
  if (token) {
    const staff = await staffOfSession(ctx, token);
    if (!staff) throw unauthorized('your session has ended (signed out, idle too long, or past 12 hours): sign in again');
    return { kind: 'staff', staff };
  }
  throw unauthorized('missing operator bearer token or console session');
}

/**
 * Cross-site request forgery: a request made with the session cookie that changes something must
 * carry the `Origin` of this server (every browser sends it on such requests; SameSite=Strict is
 * the first line, this the second). The sign-in checks it only when present, for scripts.
 */
function requireOwnOrigin(ctx: AppContext, request: FastifyRequest, options: { required: boolean }): void {
  const origin = request.headers.origin;
  if (origin === undefined && !options.required) return;
  if (origin !== ownOrigin(request, ctx.config.trustForwardedHost)) {
    throw forbidden('Cross-origin request refused: a console request must come from the console\u2019s own origin');
  }
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
