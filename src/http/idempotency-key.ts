import { Type } from '@sinclair/typebox';
import { fieldError } from '../errors.js';

/** The request header (Stripe's name and limits; the IETF Idempotency-Key draft). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** On a replayed response: `true`. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** On a replayed response: the X-Request-Id of the request whose response it is. */
export const ORIGINAL_REQUEST_ID_HEADER = 'Idempotent-Original-Request-Id';

const MAX_LENGTH = 255;
/** Printable ASCII, 0x20–0x7E: what every HTTP client can send in a header unaltered. */
const PRINTABLE = /^[\x20-\x7E]+$/;

/** The header as the OpenAPI document shows it on every partner POST (openapi.ts). */
export const IdempotencyKeyHeaderSchema = Type.String({
  minLength: 1,
  maxLength: MAX_LENGTH,
  pattern: '^[\\x20-\\x7E]+$',
  description: [
    'Optional. Makes a retry safe: within 24 hours, the same key with the same request on the same route answers the',
    'first response again (with `Idempotent-Replayed: true`) and changes nothing. 1–255 printable ASCII characters',
    '(a UUID is a good key); scoped to your clinic and this route.',
  ].join(' '),
});

/**
 * The key of a request, or undefined when it sent none. Spaces around the value are not part of
 * it (HTTP strips them on the wire; `inject` does not, so they are stripped here too). A bad value
 * is a 400 naming the header, before the body is looked at.
 */
export function readIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw fieldError(IDEMPOTENCY_KEY_HEADER, 'must be sent once');
  const key = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (key === '') throw fieldError(IDEMPOTENCY_KEY_HEADER, 'must not be empty');
  if (key.length > MAX_LENGTH) throw fieldError(IDEMPOTENCY_KEY_HEADER, `must be at most ${MAX_LENGTH} characters`);
  if (!PRINTABLE.test(key)) {
    throw fieldError(IDEMPOTENCY_KEY_HEADER, 'must contain only printable ASCII characters (space to ~)');
  }
  return key;
}
