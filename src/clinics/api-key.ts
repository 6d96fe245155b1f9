import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../config.js';

/** `dev_` for development keys, `prod_` for production keys (the spec's key formats). */
export const KEY_PREFIX: Record<Environment, string> = { development: 'dev_', production: 'prod_' };

/** The longest lifetime a key may be issued with: 10 years. */
export const MAX_KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 60 * 60;
/** The longest overlap of a roll: the old key works at most 7 days more. */
export const MAX_ROLL_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

/** 32 random bytes, base64url: 43 URL-safe characters after the prefix. */
export function generateApiKey(environment: Environment): string {
  return KEY_PREFIX[environment] + randomBytes(32).toString('base64url');
}

/** Keys are high-entropy random strings, so one SHA-256 is the right hash (no salt or stretching needed). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The environment a key's prefix claims, or null for a key of no known format. */
export function environmentOfKey(key: string): Environment | null {
  if (key.startsWith(KEY_PREFIX.development)) return 'development';
  if (key.startsWith(KEY_PREFIX.production)) return 'production';
  return null;
}

/** What operators see of a key after creation: its prefix and first characters. */
export const displayPrefix = (key: string): string => key.slice(0, key.indexOf('_') + 7);

/** What operators see of a key's end: its last four characters. */
export const lastFour = (key: string): string => key.slice(-4);
