import { Secret, TOTP } from 'otpauth';
import type { Keyring } from '../secrets/keyring.js';

/**
 * The optional second factor of portal and console accounts (issue 22): TOTP as RFC 6238 defines it
 * and every authenticator app reads it (6 digits, 30-second steps, HMAC-SHA1), computed by the
 * `otpauth` library. A code is accepted for its step and the one on either side (a phone's clock a
 * little off), and never twice: the last accepted step is kept, and a code of that step or an
 * earlier one is refused, so a code seen over a shoulder cannot be replayed.
 */

const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Steps accepted either side of now. */
const WINDOW = 1;
const ISSUER = 'NovaMed Fulfillment';

/** A new secret: 20 random bytes (RFC 4226's recommendation), base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

const totpOf = (secret: string, label: string) =>
  new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** The `otpauth://totp/...` URI an app scans (or a person types the secret). */
export function totpUri(secret: string, label: string): string {
  return totpOf(secret, label).toString();
}

/** The current code of a secret (tests and the enrollment's own check). */
export function totpCode(secret: string, at: Date): string {
  return totpOf(secret, 'code').generate({ timestamp: at.getTime() });
}

/**
 * The step of `code` when it is right at `now` and newer than `lastStep`; null otherwise. Only six
 * digits are ever compared (the library compares in constant time).
 */
export function acceptTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret, 'code').validate({ token: code, timestamp: now.getTime(), window: WINDOW });
  if (delta === null) return null;
  const step = Math.floor(now.getTime() / 1000 / PERIOD_SECONDS) + delta;
  if (lastStep !== null && step <= lastStep) return null;
  return step;
}

/** Where a TOTP secret is stored: sealed under the data key, bound to its table and row. */
export function sealTotpSecret(keyring: Keyring, table: string, id: string, secret: string) {
  const sealed = keyring.seal(secret, `${table}.totp_secret:${id}`);
  return { totp_secret: sealed.value, totp_secret_key_id: sealed.keyId };
}

export function openTotpSecret(
  keyring: Keyring,
  table: string,
  id: string,
  row: { totp_secret: string; totp_secret_key_id: string | null },
): string {
  if (row.totp_secret_key_id === null) return row.totp_secret;
  return keyring.open({ keyId: row.totp_secret_key_id, value: row.totp_secret }, `${table}.totp_secret:${id}`);
}
