import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { practitionerBody } from '../helpers/fixtures.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';

describe.each(DIALECTS)('response envelopes on %s', (dialect) => {
  let t: TestApp;
  let apiKey: string;
  let clinicId: string;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    ({ apiKey, clinicId } = await t.createClinic());
  });
  afterAll(async () => t.close());

  it('when a partner create succeeds, then the body is exactly {success: true, data, message}', async () => {
    const res = await t.partner(apiKey).post('/api/external/practitioner', practitionerBody(clinicId));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toEqual(expect.any(String));
  });

  it('when an operator call succeeds, then it has the same envelope', async () => {
    const res = await t.operator.post('/api/admin/clinics', { name: 'Envelope Clinic' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
    expect(res.body.success).toBe(true);
  });

  it('when a validation error is answered, then details hold one message per invalid field and the message names them', async () => {
    const res = await t
      .partner(apiKey)
      .post('/api/external/practitioner', practitionerBody(clinicId, { email: 'not-an-email', first_name: 'A' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: {
        message: expect.stringMatching(/^Validation failed: /),
        code: 'VALIDATION_ERROR',
        details: { email: expect.any(String), first_name: expect.any(String) },
        request_id: res.headers['x-request-id'],
      },
    });
    expect(res.body.error.message).toContain('email');
    expect(res.body.error.message).toContain('first_name');
  });

  it('when something unexpected fails (the database is gone), then 500 INTERNAL_ERROR without internals', async () => {
    const broken = await TestApp.start({ dialect });
    await broken.ctx.db.destroy();
    const res = await broken.request('GET', '/api/external/carriers', {
      headers: { 'x-api-key': `dev_${randomBytes(32).toString('base64url')}` },
    });
    await broken.close();
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      success: false,
      error: { message: 'Internal server error', code: 'INTERNAL_ERROR', request_id: res.headers['x-request-id'] },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/stack|sql|select|destroy|kysely|pool/i);
  });
});
