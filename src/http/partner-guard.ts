import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashApiKey } from '../clinics/api-key.js';
import { assertApiKeyForm, authenticateApiKey } from '../clinics/clinic.service.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { verifyAccessToken } from '../oauth/access-token.js';
import { authenticateAccessToken, bearerTokenOf } from '../oauth/bearer.js';
import type { WindowCount } from './rate-limit-store.js';
import { addressBucketOf, clientAddress } from './client-address.js';
import { assertScope } from './scope-guard.js';
import {
  apiKeyRateLimitBucket,
  oauthClientRateLimitBucket,
  PARTNER_RATE_LIMIT_WINDOW_MS,
} from '../contracts/rate-limit-buckets.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on /api/external requests once the API key is accepted. */
    partner?: PartnerIdentity;
  }
}

const WINDOW_MS = PARTNER_RATE_LIMIT_WINDOW_MS;
/** How long a key that authenticated stays exempt from its address's block for failed keys. */
const KNOWN_KEY_TTL_MS = 24 * 60 * 60_000;

/**
 * Authenticates and rate-limits a partner request. Every response, refusals included, carries the
 * X-RateLimit-* headers.
 *
 * The limit is counted per API key (by a digest of its hash, before the database is asked, so that a
 * key over its limit costs no query either: rate-limit-buckets.ts) and, for failed authentications, per client address. Once
 * an address has used up its failures for the window, its requests are refused before the key is
 * looked up: a flood of guessed keys costs no query. A key that has authenticated before is exempt
 * from that block, so that partners behind the same address as a guesser keep working.
 */
export async function guardPartnerRequest(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // An OAuth access token, when no key is sent: with both, the key decides (and Authorization is
  // ignored, as it always was here), so that a partner whose stack adds a Bearer header keeps working.
  const bearer = request.headers['x-api-key'] === undefined ? bearerTokenOf(request) : undefined;
  if (bearer !== undefined) return guardAccessToken(ctx, request, reply, bearer);
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  const attempt = new Attempt(ctx, request, reply);
  try {
    assertApiKeyForm(ctx, key);
  } catch (formError) {
    // Missing, malformed or of the other environment: refused without a lookup, counted as a failure.
    await attempt.countFailure();
    throw formError;
  }
  const keyHash = hashApiKey(key);
  const bucket = apiKeyRateLimitBucket(keyHash);
  await attempt.admit(bucket, `known:${bucket}`, () => authenticateApiKey(ctx, key, keyHash));
}

/**
 * The same for an OAuth access token (`Authorization: Bearer`, docs/oauth.md): the token is checked
 * without a query (signature, expiry, claims: a bad one counts against the address), then counted
 * per client as a key is per key, then its client is looked up (revoked: 401) and its scopes enforced.
 */
async function guardAccessToken(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, token: string): Promise<void> {
  const attempt = new Attempt(ctx, request, reply);
  let claims;
  try {
    claims = await verifyAccessToken(ctx, token);
  } catch (formError) {
    await attempt.countFailure();
    throw formError;
  }
  const client = oauthClientRateLimitBucket(claims.clientId);
  await attempt.admit(client, `known:${client}`, () => authenticateAccessToken(ctx, claims));
}

/** One request's credential being checked: its rate-limit buckets, and what a refusal counts. */
class Attempt {
  private readonly now: number;
  private readonly addressBucket: string;

  constructor(
    private readonly ctx: AppContext,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    this.now = ctx.clock().getTime();
    this.addressBucket = `ip:${addressBucketOf(clientAddress(request))}`;
  }

  /** A refused credential counts against its address (whose headers the refusal then carries). */
  async countFailure(): Promise<void> {
    enforce(
      this.ctx,
      this.reply,
      'address',
      await this.ctx.rateLimitStore.hit(this.addressBucket, WINDOW_MS, this.now),
      this.now,
    );
  }

  /**
   * Counts the request in the credential's bucket (refused when over the limit, or when its address
   * is blocked for failures and the credential has not authenticated before), then authenticates
   * it, sets the request's partner and enforces the credential's scopes.
   */
  async admit(bucket: string, knownMarker: string, authenticate: () => Promise<PartnerIdentity>): Promise<void> {
    const { ctx, reply, now } = this;
    const admission = await ctx.rateLimitStore.admitKey({
      keyBucket: bucket,
      addressBucket: this.addressBucket,
      knownMarker,
      limit: ctx.config.rateLimitPerMinute,
      windowMs: WINDOW_MS,
      now,
    });
    if (!admission.admitted) {
      setHeaders(ctx, reply, admission.address);
      throw rejection(ctx, reply, 'address', admission.address, now);
    }
    enforce(ctx, reply, 'key', admission.key, now);
    let identity: PartnerIdentity;
    try {
      identity = await authenticate();
    } catch (error) {
      // A database failure is not the client's and counts nothing.
      if (error instanceof AppError && error.statusCode === 401) await this.countFailure();
      throw error;
    }
    if (!admission.known) await ctx.rateLimitStore.markKnown(knownMarker, KNOWN_KEY_TTL_MS, now);
    this.request.partner = identity;
    // A restricted credential on a route outside its scopes: 403, before the body is read.
    assertScope(this.request, identity);
  }
}

/** The authenticated partner of a request; routes behind the guard can rely on it. */
export function partnerOf(request: FastifyRequest): PartnerIdentity {
  if (!request.partner) throw new AppError('UNAUTHORIZED', 401, 'Unauthorized: missing x-api-key header');
  return request.partner;
}

/** Sets the X-RateLimit-* headers from a bucket's window, and refuses with 429 when it is over the limit. */
function enforce(ctx: AppContext, reply: FastifyReply, bucket: 'key' | 'address', window: WindowCount, now: number): void {
  setHeaders(ctx, reply, window);
  if (window.count > ctx.config.rateLimitPerMinute) throw rejection(ctx, reply, bucket, window, now);
}

function setHeaders(ctx: AppContext, reply: FastifyReply, window: WindowCount): void {
  const max = ctx.config.rateLimitPerMinute;
  reply.header('X-RateLimit-Limit', max);
  reply.header('X-RateLimit-Remaining', Math.max(0, max - window.count));
  reply.header('X-RateLimit-Reset', Math.ceil(window.resetAt / 1000));
}

/** The 429 (with Retry-After), counted in rate_limit_rejections_total by bucket kind. */
function rejection(ctx: AppContext, reply: FastifyReply, bucket: 'key' | 'address', window: WindowCount, now: number): AppError {
  ctx.metrics.rateLimitRejections.inc({ bucket });
  const max = ctx.config.rateLimitPerMinute;
  const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  reply.header('Retry-After', retryAfter);
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    429,
    `Rate limit exceeded: ${max} requests per minute; retry after ${retryAfter} seconds`,
    undefined,
    { retry_after: retryAfter },
  );
}
