import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { fieldError } from '../errors.js';

/** The public keys a private_key_jwt client registers: at most this many. */
export const MAX_JWKS_KEYS = 10;

/** Members that only a private or symmetric JWK has (RFC 7518 §6.2.2, §6.3.2, §6.4.1). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const KEY_TYPES = ['RSA', 'EC', 'OKP'];

/**
 * Checks a JWK Set given at a client's creation: one to ten public keys (RSA, EC or OKP), each one
 * Node can import, none with a private member. Returns the set as stored (JSON); throws a 400
 * naming the first bad field.
 */
export function checkedJwks(jwks: { keys: Record<string, unknown>[] }): string {
  jwks.keys.forEach((key, index) => {
    const field = `jwks.keys[${index}]`;
    if (!KEY_TYPES.includes(String(key.kty))) throw fieldError(`${field}.kty`, `must be ${KEY_TYPES.join(', ')}`);
    const secret = PRIVATE_MEMBERS.find((member) => member in key);
    if (secret !== undefined) throw fieldError(`${field}.${secret}`, 'must not be given: register public keys only');
    if (key.use !== undefined && key.use !== 'sig') throw fieldError(`${field}.use`, 'must be sig when given');
    try {
      createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
    } catch {
      throw fieldError(field, 'is not a valid public JWK');
    }
  });
  return JSON.stringify({ keys: jwks.keys });
}
