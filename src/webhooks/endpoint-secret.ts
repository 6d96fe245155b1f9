import { SecretUnavailableError, type Keyring } from '../secrets/keyring.js';
import type { WebhookEndpointTable } from './webhook.tables.js';

/**
 * An endpoint's signing secret at rest: sealed under the current data key, bound to the endpoint's
 * id (the AAD), so that a secret copied into another endpoint's row does not decrypt there.
 */

export type StoredSecret = Pick<WebhookEndpointTable, 'id' | 'secret' | 'secret_key_id'>;

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
export function openEndpointSecret(keyring: Keyring, row: StoredSecret): string {
  if (row.secret_key_id === null) return row.secret;
  try {
    return keyring.open({ keyId: row.secret_key_id, value: row.secret }, aadOf(row.id));
  } catch (error) {
    if (!(error instanceof SecretUnavailableError)) throw error;
    throw new SecretUnavailableError(`the signing secret of webhook endpoint ${row.id} cannot be decrypted: ${error.message}`);
  }
}
