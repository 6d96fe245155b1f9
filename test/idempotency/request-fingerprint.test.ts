import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from '../../src/idempotency/request-fingerprint.js';

describe('the fingerprint of a request (what "the same request" means for an idempotency key)', () => {
  const body = { patient_id: 'p', items: [{ dose: '1mg', quantity: 1 }], shipping: { carrier: 'ups', service: 'ground' } };

  it('when object keys come in another order at any depth, then the fingerprint is the same', () => {
    const reordered = { shipping: { service: 'ground', carrier: 'ups' }, items: [{ quantity: 1, dose: '1mg' }], patient_id: 'p' };
    expect(requestFingerprint({ params: {}, body: reordered })).toBe(requestFingerprint({ params: {}, body }));
    expect(canonicalJson(reordered)).toBe(canonicalJson(body));
  });

  it('when a value, a field or the order of an array changes, then the fingerprint changes', () => {
    const base = requestFingerprint({ params: {}, body });
    expect(requestFingerprint({ params: {}, body: { ...body, patient_id: 'q' } })).not.toBe(base);
    expect(requestFingerprint({ params: {}, body: { ...body, note: null } })).not.toBe(base);
    expect(requestFingerprint({ params: {}, body: { ...body, items: [...body.items, { dose: '2mg', quantity: 1 }] } })).not.toBe(
      base,
    );
    const two = { ...body, items: [{ a: 1 }, { b: 2 }] };
    expect(requestFingerprint({ params: {}, body: { ...two, items: [{ b: 2 }, { a: 1 }] } })).not.toBe(
      requestFingerprint({ params: {}, body: two }),
    );
  });

  it('when the path parameters differ, then the fingerprint differs; no body counts as null', () => {
    expect(requestFingerprint({ params: { id: 'a' }, body: undefined })).not.toBe(
      requestFingerprint({ params: { id: 'b' }, body: undefined }),
    );
    expect(requestFingerprint({ params: { id: 'a' }, body: undefined })).toBe(
      requestFingerprint({ params: { id: 'a' }, body: null }),
    );
    expect(requestFingerprint({ params: {}, body: {} })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('when a key is named __proto__, then it is kept as a plain key', () => {
    const poisoned = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as unknown;
    expect(canonicalJson(poisoned)).toBe('{"__proto__":{"x":1},"a":2}');
  });
});
