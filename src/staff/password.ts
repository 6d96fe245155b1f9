import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHashing } from '../config.js';

/**
 * Staff passwords, hashed with scrypt from node:crypto (memory-hard; RFC 7914), never reversible.
 * The stored form carries its parameters and salt, `scrypt$N$r$p$<salt>$<hash>` (base64url), so
 * that stronger parameters can be adopted later without invalidating existing hashes. The cost of a
 * new hash is the config's passwordHashing (config.ts, PASSWORD_HASHING).
 */

const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is just short of N = 2^15, r = 8. */
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, parameters: PasswordHashing): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, parameters);
  const { N, r, p } = parameters;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches `stored`; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  if (![N, r, p].every(Number.isSafeInteger) || expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, salt, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/** One per cost (the process has one config): made on first use. */
const unknownAccountHashes = new Map<string, string>();

/**
 * A hash no password matches in practice, of the given cost, verified against when the email is
 * unknown, so that a sign-in takes as long whether or not the account exists.
 */
export function unknownAccountHash({ N, r, p }: PasswordHashing): string {
  const key = `${N}$${r}$${p}`;
  let hash = unknownAccountHashes.get(key);
  if (hash === undefined) {
    hash = `scrypt$${key}$${randomBytes(16).toString('base64url')}$${randomBytes(KEY_LENGTH).toString('base64url')}`;
    unknownAccountHashes.set(key, hash);
  }
  return hash;
}
