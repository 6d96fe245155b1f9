import { createHash } from 'node:crypto';

/**
 * What makes two requests with one idempotency key "the same request": their path parameters
 * (the concrete path: cancelling order A is not cancelling order B) and their parsed JSON body.
 * The route itself is part of the key's scope, not of the fingerprint. Pure.
 */
export interface RequestParts {
  params: unknown;
  body: unknown;
}

/**
 * SHA-256 (hex) of the canonical form of the request: object keys sorted at every depth, arrays in
 * order, no whitespace. So `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are the same request, while a
 * changed value, an added field or a reordered array is not.
 */
export function requestFingerprint(parts: RequestParts): string {
  return createHash('sha256')
    .update(canonicalJson({ params: parts.params ?? null, body: parts.body ?? null }))
    .digest('hex');
}

/** JSON with object keys sorted at every depth (values that JSON cannot hold are dropped, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const source = value as Record<string, unknown>;
    // No prototype: a key named __proto__ stays a plain key.
    const sorted = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(source).sort()) sorted[key] = sortKeys(source[key]);
    return sorted;
  }
  return value;
}
