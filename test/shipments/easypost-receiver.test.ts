import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { easyPostSignature } from '../../src/shipments/easypost-signature.js';
import { EASYPOST_BODY_LIMIT_BYTES } from '../../src/shipments/easypost.routes.js';
import { TestApp } from '../helpers/test-app.js';
import { trackerUpdated } from './easypost-support.js';

/**
 * POST /api/carrier-events/easypost before any shipment is involved: its configuration, signature,
 * body bounds and parsing, the guards of the app around it. Nothing here touches data: SQLite only
 * (test/shipments/easypost.test.ts moves shipments on both databases).
 */
const PATH = '/api/carrier-events/easypost';
const SECRET = 'easypost-test-webhook-secret-0123';

const signed = (payload: string, secret = SECRET) => ({
  'content-type': 'application/json',
  'x-hmac-signature': easyPostSignature(payload, secret),
});

describe('the EasyPost receiver', () => {
  let t: TestApp;
  const post = (payload: string, headers: Record<string, string>, remoteAddress?: string) =>
    t.request('POST', PATH, { payload, headers, ...(remoteAddress ? { remoteAddress } : {}) });

  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite', env: { EASYPOST_WEBHOOK_SECRET: SECRET } });
  });
  afterAll(async () => t.close());

  it('when the signature is missing, then 401 says so, without an API key asked for', async () => {
    const answer = await post(JSON.stringify(trackerUpdated()), { 'content-type': 'application/json' });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Unauthorized: the X-Hmac-Signature header is missing',
    });
    expect(answer.headers['api-version']).toBeUndefined();
  });

  it('when the signature is of another secret, another body, or not a signature, then 401', async () => {
    const payload = JSON.stringify(trackerUpdated());
    for (const signature of [
      easyPostSignature(payload, 'another-secret'),
      easyPostSignature(`${payload} `, SECRET),
      'hmac-sha256-hex=00',
      'nonsense',
    ]) {
      const answer = await post(payload, { 'content-type': 'application/json', 'x-hmac-signature': signature });
      expect(answer.status, signature).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('when a body is malformed JSON, then 401 unsigned (nothing is parsed before the signature) and 400 naming body signed', async () => {
    const payload = '{"id": "evt_1", "description": ';
    expect((await post(payload, { 'content-type': 'application/json' })).status).toBe(401);
    const answer = await post(payload, signed(payload));
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual({ body: 'must be valid JSON' });
  });

  it('when a signed body is empty, has a __proto__ key or is not UTF-8, then 400 naming the field', async () => {
    const empty = await t.app.inject({ method: 'POST', url: PATH, headers: signed('') });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.details).toEqual({ body: 'is required' });
    const poisoned = '{"id":"evt_1","description":"tracker.updated","__proto__":{"x":1}}';
    expect((await post(poisoned, signed(poisoned))).status).toBe(400);
    const bytes = Buffer.concat([Buffer.from('{"id":"evt_1","description":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const invalid = await t.app.inject({
      method: 'POST',
      url: PATH,
      payload: bytes,
      headers: { 'content-type': 'application/json', 'x-hmac-signature': easyPostSignature(bytes, SECRET) },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.details).toEqual({ description: 'must be valid UTF-8' });
  });

  it('when a signed body is not a tracker.updated Event, then 400 names the field', async () => {
    const payload = JSON.stringify(trackerUpdated({ tracker: { tracking_code: 42 } }));
    const answer = await post(payload, signed(payload));
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.error.details)).toEqual(['result.tracking_code']);
  });

  it('when a signed Event is of another description, then 200 says it was ignored', async () => {
    const payload = JSON.stringify({ id: 'evt_2b', object: 'Event', description: 'batch.updated', result: { id: 'batch_1' } });
    const answer = await post(payload, signed(payload));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, data: { event_id: 'evt_2b', outcome: 'ignored' } });
  });

  it('when the body is larger than 256 KiB, then 413 says so, before the signature is checked', async () => {
    const payload = JSON.stringify({ ...trackerUpdated(), padding: 'x'.repeat(EASYPOST_BODY_LIMIT_BYTES) });
    const answer = await post(payload, signed(payload));
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Payload too large: EasyPost Events are limited to 256 KiB',
    });
    const unsigned = await post(payload, { 'content-type': 'application/json' });
    expect(unsigned.status).toBe(413);
  });

  it('when a body is just under 256 KiB of scans, then it is read (at most the last 100 scans) and answered', async () => {
    const details = Array.from({ length: 780 }, (_, i) => ({
      status: 'in_transit',
      message: `Scan ${i} ${'y'.repeat(150)}`,
      datetime: '2030-03-02T10:00:00Z',
      tracking_location: { city: 'MEMPHIS', state: 'TN', country: 'US', zip: '38118' },
    }));
    const payload = JSON.stringify(trackerUpdated({ tracker: { tracking_details: details } }));
    expect(Buffer.byteLength(payload)).toBeLessThan(EASYPOST_BODY_LIMIT_BYTES);
    expect(Buffer.byteLength(payload)).toBeGreaterThan(EASYPOST_BODY_LIMIT_BYTES * 0.8);
    const answer = await post(payload, signed(payload));
    expect([200, 202]).toContain(answer.status);
  });

  it('when the body is not JSON, then 415', async () => {
    const answer = await post('id=evt_1', { 'content-type': 'application/x-www-form-urlencoded', 'x-hmac-signature': 'x' });
    expect(answer.status).toBe(415);
  });

  it('when the route is looked up in the documents, then the whole one has it (tag Carrier events) and the partner\u2019s does not', async () => {
    const whole = t.app.swagger() as any;
    expect(whole.paths[PATH].post.tags).toEqual(['Carrier events']);
    expect(whole.paths[PATH].post.security).toEqual([{ easyPostSignature: [] }]);
    const { partnerDocument } = await import('../../src/openapi.js');
    const partner = partnerDocument(whole) as any;
    expect(partner.paths[PATH]).toBeUndefined();
    expect(partner.components.securitySchemes.easyPostSignature).toBeUndefined();
  });
});

describe('the EasyPost receiver behind a proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite', env: { EASYPOST_WEBHOOK_SECRET: SECRET, TRUST_PROXY: '10.0.0.0/8' } });
  });
  afterAll(async () => t.close());

  it('when the Event came to the proxy over plain HTTP, then 403 as for the APIs; over HTTPS it is read', async () => {
    const payload = JSON.stringify(trackerUpdated());
    const post = (proto: string) =>
      t.request('POST', PATH, {
        payload,
        headers: { ...signed(payload), 'x-forwarded-proto': proto },
        remoteAddress: '10.0.0.9',
      });
    const plain = await post('http');
    expect(plain.status).toBe(403);
    expect(plain.body.error.message).toMatch(/^HTTPS is required/);
    expect([200, 202]).toContain((await post('https')).status);
  });
});

describe('the EasyPost receiver without EASYPOST_WEBHOOK_SECRET', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
  });
  afterAll(async () => t.close());

  it('when an Event arrives, then 503 says the receiver is not configured (never a 500), signed or not', async () => {
    const payload = JSON.stringify(trackerUpdated());
    for (const headers of [signed(payload), { 'content-type': 'application/json' }]) {
      const answer = await t.request('POST', PATH, { payload, headers });
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(answer.body.error.message).toMatch(/EASYPOST_WEBHOOK_SECRET/);
    }
  });
});
