import { createHash } from 'node:crypto';

/** The partner API's rate-limit window: a calendar minute (`windowOf`). */
export const PARTNER_RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * The window that contains `now`: where it starts and where it ends (X-RateLimit-Reset). The
 * edge's stores count in it (http/rate-limit-store.ts), and the partner portal's overview shows it.
 */
export function windowOf(now: number, windowMs: number): { start: number; resetAt: number } {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, resetAt: start + windowMs };
}

/**
 * The counter of an API key, named by a digest of its stored hash (`hashApiKey`): the guard computes
 * it from the presented key before any query, and the partner portal's overview from the rows of the
 * clinic's keys, to read their use of the minute. 128 bits, plenty to keep keys apart; the key
 * itself never reaches the store.
 */
export function apiKeyRateLimitBucket(keyHash: string): string {
  return `key:${createHash('sha256').update('rate-limit\0').update(keyHash, 'utf8').digest('hex').slice(0, 32)}`;
}

/** The counter of an OAuth client's access tokens (counted per client, as a key is per key). */
export const oauthClientRateLimitBucket = (clientId: string): string => `client:${clientId}`;
