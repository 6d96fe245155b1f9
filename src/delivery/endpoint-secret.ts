import { SecretUnavailableError, type Keyring } from '../secrets/keyring.js';
import type { WebhookEndpointTable } from './webhook.tables.js';

/**
 * An endpoint's signing secrets at rest: sealed under the current data key, bound to the endpoint's
 * id (the AAD), so that a secret copied into another endpoint's row does not decrypt there. The
 * previous secret (kept for a while after a rotation) is bound the same way: a rotation moves the
 * current ciphertext to `previous_secret` as it is, without decrypting it.
 */

export type StoredSecret = Pick<WebhookEndpointTable, 'id' | 'secret' | 'secret_key_id'>;

/** What signing needs of an endpoint: both secrets and until when the previous one signs. */
export type StoredSecrets = StoredSecret &
  Pick<WebhookEndpointTable, 'previous_secret' | 'previous_secret_key_id' | 'previous_secret_expires_at'>;

/** How long the previous secret keeps signing after a rotation, in hours: 0 (it stops at once) to 24. */
export const PREVIOUS_VALID_HOURS = { min: 0, max: 24, default: 24 } as const;

const aadOf = (endpointId: string): string => `webhook_endpoints.secret:${endpointId}`;

/** The columns that store `secret` for the endpoint `endpointId`. */
export function sealEndpointSecret(
  keyring: Keyring,
  endpointId: string,
  secret: string,
): Pick<WebhookEndpointTable, 'secret' | 'secret_key_id'> {
  const sealed = keyring.seal(secret, aadOf(endpointId));
  return { secret: sealed.value, secret_key_id: sealed.keyId };
}

/**
 * The endpoint's secret, for signing. A row without key id predates encryption (or was written by an
 * older version during an upgrade): its secret is still plaintext until the next start encrypts it.
 * Throws SecretUnavailableError, naming the endpoint and the key id but never the secret.
 */
export function openEndpointSecret(keyring: Keyring, row: StoredSecret, which = 'signing secret'): string {
  if (row.secret_key_id === null) return row.secret;
  try {
    return keyring.open({ keyId: row.secret_key_id, value: row.secret }, aadOf(row.id));
  } catch (error) {
    if (!(error instanceof SecretUnavailableError)) throw error;
    throw new SecretUnavailableError(`the ${which} of webhook endpoint ${row.id} cannot be decrypted: ${error.message}`);
  }
}

/** The secrets an endpoint signs with, decrypted: the current one, and the previous one until `until` (ms). */
export interface SigningSecrets {
  current: string;
  previous: { value: string; until: number } | null;
}

/**
 * Decrypts the secrets that sign at `now` (ms): the current one, and the previous one while its
 * rotation window lasts (an expired one is not even decrypted: its key may be gone). Throws
 * SecretUnavailableError when either cannot be decrypted: an attempt signed with fewer secrets than
 * promised would fail the partner's check anyway.
 */
export function openSigningSecrets(keyring: Keyring, row: StoredSecrets, now: number): SigningSecrets {
  const current = openEndpointSecret(keyring, row);
  const until = row.previous_secret_expires_at === null ? NaN : Date.parse(row.previous_secret_expires_at);
  if (row.previous_secret === null || !(until > now)) return { current, previous: null };
  const stored = { id: row.id, secret: row.previous_secret, secret_key_id: row.previous_secret_key_id };
  return { current, previous: { value: openEndpointSecret(keyring, stored, 'previous signing secret'), until } };
}

/** The secrets to sign an attempt made at `now` (ms) with: the new one first, then the previous one while it lasts. */
export function secretsAt(secrets: SigningSecrets, now: number): string[] {
  return secrets.previous !== null && secrets.previous.until > now
    ? [secrets.current, secrets.previous.value]
    : [secrets.current];
}
