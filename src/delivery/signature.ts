import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/, "Signature scheme").
 * Pure: no I/O, no clock.
 */

export const SECRET_PREFIX = 'whsec_';
/** Random bytes in a new secret (the standard asks for 24 to 64). */
export const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The HMAC key of a secret: the base64 after the `whsec_` prefix, decoded. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('Webhook secret is empty');
  return key;
}

/**
 * The `webhook-signature` header value: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`,
 * where `body` is the exact string sent.
 */
export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers of one attempt. With several secrets (the new one first, then
 * the previous one while a rotation's window lasts), `webhook-signature` holds one signature per
 * secret, space-separated: a receiver accepts the request when any of them verifies.
 * @see https://www.standardwebhooks.com/ ("Signature scheme": multiple signatures for zero-downtime rotation)
 */
export function webhookHeaders(
  secrets: string | readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': all.map((secret) => signPayload(secret, id, timestampSeconds, body)).join(' '),
  };
}
