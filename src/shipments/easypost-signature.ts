import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * EasyPost's webhook signature (docs/shipping.md#the-easypost-receiver): every Event EasyPost posts to
 * a webhook that has a `webhook_secret` carries `X-Hmac-Signature: hmac-sha256-hex=<hex>`, the
 * HMAC-SHA256 of the raw body under the secret, the secret first normalized to Unicode NFKD and
 * encoded as UTF-8. This is what EasyPost's own libraries check (`validate_webhook` in
 * easypost-python, `Utils.validateWebhook` in easypost-node), compared in constant time.
 *
 * The body is signed as it was sent: it is checked before it is parsed, never re-serialized (the
 * node library's rewriting of `"weight": 10` to `10.0` only repairs a body a caller re-serialized).
 */

/** The header EasyPost signs its Events in (Node gives header names in lower case). */
export const EASYPOST_SIGNATURE_HEADER = 'x-hmac-signature';
const PREFIX = 'hmac-sha256-hex=';

/** The header's value EasyPost sends for `body` under `secret`. */
export function easyPostSignature(body: Buffer | string, secret: string): string {
  const key = Buffer.from(secret.normalize('NFKD'), 'utf8');
  return `${PREFIX}${createHmac('sha256', key).update(body).digest('hex')}`;
}

/**
 * Whether `header` is EasyPost's signature of `body` under `secret`. A missing, repeated or
 * malformed header is not; the comparison takes the same time wherever the values differ.
 */
export function isEasyPostSignature(body: Buffer, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const given = Buffer.from(header.trim().toLowerCase(), 'utf8');
  const expected = Buffer.from(easyPostSignature(body, secret), 'utf8');
  // timingSafeEqual needs equal lengths; a length differs only for a value that is not a signature at all.
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}
