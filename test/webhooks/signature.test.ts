import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret, secretKey, signPayload, webhookHeaders } from '../../src/delivery/signature.js';

describe('Standard Webhooks signing', () => {
  it('when a secret is generated, then it is whsec_ followed by base64 of 32 random bytes, different each time', () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('when a body is signed, then the standardwebhooks package verifies it', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ type: 'order.created', timestamp: '2026-01-01T00:00:00.000Z', data: { status: 'pending' } });
    const now = Math.floor(Date.now() / 1000);
    const payload = new Webhook(secret).verify(body, webhookHeaders(secret, 'evt-1', now, body));
    expect(payload).toEqual(JSON.parse(body));
  });

  it("when the signature is computed, then it equals the library's own signature of id.timestamp.body", () => {
    const secret = generateSecret();
    const at = new Date('2026-03-01T12:00:00Z');
    const body = '{"a":1}';
    expect(signPayload(secret, 'msg_1', Math.floor(at.getTime() / 1000), body)).toBe(new Webhook(secret).sign('msg_1', at, body));
  });

  it('when one byte of the body changes, then verification fails', () => {
    const secret = generateSecret();
    const body = '{"type":"order.created","data":{"status":"pending"}}';
    const headers = webhookHeaders(secret, 'evt-2', Math.floor(Date.now() / 1000), body);
    expect(() => new Webhook(secret).verify(body.replace('pending', 'shipped'), headers)).toThrow();
  });

  it('when another secret is used, then verification fails', () => {
    const body = '{}';
    const headers = webhookHeaders(generateSecret(), 'evt-3', Math.floor(Date.now() / 1000), body);
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });
});
