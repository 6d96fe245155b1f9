import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { openEndpointSecret } from '../../src/delivery/endpoint-secret.js';
import { registerEndpointForPartner } from '../../src/webhooks/webhook.service.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { deliveriesOf, emitEvent, registerEndpoint } from './support.js';

const URL_A = 'https://partner.example.com/hooks/a';

describe.each(DIALECTS)('webhook registration on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when a clinic registers a URL, then it gets a webhook_id and a whsec_ secret, stored for signing', async () => {
    const clinic = await t.createClinic();
    const res = await t.partner(clinic.apiKey).post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: URL_A });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/) },
      message: expect.stringContaining('Webhook registered'),
    });
    expect(Buffer.from(res.body.data.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const row = await t.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', res.body.data.webhook_id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      clinic_id: clinic.clinicId,
      url: URL_A,
      status: 'active',
      deleted_at: null,
    });
    // Stored encrypted (test/webhooks/secret-encryption.test.ts), and readable for signing.
    expect(row.secret).not.toContain(res.body.data.secret.slice(6));
    expect(openEndpointSecret(t.ctx.keyring, row)).toBe(res.body.data.secret);
  });

  it('when the endpoints are listed, then they appear with their state and never their secrets', async () => {
    const clinic = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, clinic, URL_A);
    const res = await t.partner(clinic.apiKey).get(`/api/external/webhook?clinic_id=${clinic.clinicId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        webhook_id: webhookId,
        clinic_id: clinic.clinicId,
        webhook_url: URL_A,
        status: 'active',
        disabled_at: null,
        disabled_reason: null,
        created_at: expect.any(String),
        max_in_flight: 10,
        max_per_second: null,
        event_types: null,
        paused_until: null,
      },
    ]);
    expect(JSON.stringify(res.body)).not.toContain('whsec_');
    const withoutClinic = await t.partner(clinic.apiKey).get('/api/external/webhook');
    expect(withoutClinic.body.data).toHaveLength(1);
  });

  it('when another clinic is named in the list query, then 403; an unknown clinic, then 400', async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    expect((await t.partner(clinic.apiKey).get(`/api/external/webhook?clinic_id=${other.clinicId}`)).status).toBe(403);
    const unknown = await t.partner(clinic.apiKey).get('/api/external/webhook?clinic_id=00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('Clinic not found');
  });

  it('when the same URL is registered twice for a clinic, then 400 naming webhook_url, and nothing is added', async () => {
    const clinic = await t.createClinic();
    await registerEndpoint(t, clinic, URL_A);
    const res = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: 'https://PARTNER.example.com/hooks/a' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { webhook_url: 'is already registered for this clinic' },
    });
    const rows = await t.ctx.db.selectFrom('webhook_endpoints').select('id').where('clinic_id', '=', clinic.clinicId).execute();
    expect(rows).toHaveLength(1);
  });

  it('when two clinics register the same URL, then both succeed', async () => {
    const a = await t.createClinic();
    const b = await t.createClinic();
    await registerEndpoint(t, a, URL_A);
    await registerEndpoint(t, b, URL_A);
  });

  it('when a clinic has 10 endpoints, then an 11th is refused with 400, and a deleted one frees a place', async () => {
    const clinic = await t.createClinic();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await registerEndpoint(t, clinic, `https://partner.example.com/h/${i}`)).webhookId);
    const res = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: 'https://partner.example.com/h/10' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/at most 10 webhook endpoints/);
    expect(res.body.error.details).toEqual({ webhook_url: 'clinic already has 10 webhook endpoints' });
    await t.partner(clinic.apiKey).delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: ids[0] });
    await registerEndpoint(t, clinic, 'https://partner.example.com/h/10');
  });

  it('when 12 registrations of one clinic race, then exactly 10 succeed', async () => {
    const clinic = await t.createClinic();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t
          .partner(clinic.apiKey)
          .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: `https://partner.example.com/race/${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 400)).toHaveLength(2);
  });

  it('when the body is invalid, then 400 names each field', async () => {
    const clinic = await t.createClinic();
    const res = await t.partner(clinic.apiKey).post('/api/external/webhook', { clinic_id: 'nope', url: URL_A });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({
      clinic_id: 'must be a UUID',
      webhook_url: 'is required',
      url: 'is not a known field; did you mean webhook_url?',
    });
    const relative = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: '/hooks' });
    expect(relative.body.error.details).toEqual({ webhook_url: 'must be an absolute URL' });
  });

  it('when another clinic is named in the body, then 403 and nothing is registered', async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const res = await t.partner(clinic.apiKey).post('/api/external/webhook', { clinic_id: other.clinicId, webhook_url: URL_A });
    expect(res.status).toBe(403);
    const rows = await t.ctx.db.selectFrom('webhook_endpoints').select('id').where('clinic_id', '=', other.clinicId).execute();
    expect(rows).toHaveLength(0);
  });

  it('when in development, then http:// and a local receiver are accepted', async () => {
    const clinic = await t.createClinic();
    await registerEndpoint(t, clinic, 'http://127.0.0.1:4000/hook');
    await registerEndpoint(t, clinic, 'http://localhost:4000/hook');
  });

  it('when an endpoint is deleted, then 200 with its id, it is no longer listed, and its pending deliveries are cancelled', async () => {
    const clinic = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, clinic, URL_A);
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    // Fan out without sending (no worker here): the delivery is pending.
    await dispatchOutbox(t.ctx);
    expect((await deliveriesOf(t.ctx, eventId))[0]?.status).toBe('pending');

    const res = await t
      .partner(clinic.apiKey)
      .delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { webhook_id: webhookId }, message: 'Webhook deleted successfully' });
    expect((await t.partner(clinic.apiKey).get('/api/external/webhook')).body.data).toEqual([]);
    const [delivery] = await deliveriesOf(t.ctx, eventId);
    expect(delivery).toMatchObject({ status: 'cancelled', next_attempt_at: null, last_error: 'endpoint deleted' });
  });

  it("when an unknown webhook or another clinic's webhook is deleted, then 404 and the other clinic's stays", async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const theirs = await registerEndpoint(t, other, URL_A);
    const unknown = await t
      .partner(clinic.apiKey)
      .delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Webhook not found' });
    const foreign = await t
      .partner(clinic.apiKey)
      .delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: theirs.webhookId });
    expect(foreign.status).toBe(404);
    expect((await t.partner(other.apiKey).get('/api/external/webhook')).body.data).toHaveLength(1);
    const twice = await t
      .partner(other.apiKey)
      .delete('/api/external/webhook', { clinic_id: other.clinicId, webhook_id: theirs.webhookId });
    expect(twice.status).toBe(200);
    expect(
      (await t.partner(other.apiKey).delete('/api/external/webhook', { clinic_id: other.clinicId, webhook_id: theirs.webhookId }))
        .status,
    ).toBe(404);
  });
});

describe.each(DIALECTS)('webhook registration in production on %s (SSRF)', (dialect) => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await TestApp.start({ dialect, env: { FULFILLMENT_ENV: 'production' } });
  });
  afterAll(async () => strict.close());

  it.each([
    ['https://127.0.0.1/hook', /private or internal address \(127\.0\.0\.1\)/],
    ['https://10.1.2.3/hook', /private or internal address \(10\.1\.2\.3\)/],
    ['https://169.254.169.254/latest/meta-data', /private or internal address \(169\.254\.169\.254\)/],
    ['https://[::1]:8443/hook', /private or internal address \(::1\)/],
    ['https://[::ffff:127.0.0.1]/hook', /private or internal address/],
    ['https://localhost/hook', /local host name \(localhost\)/],
    ['https://hooks.localhost/hook', /local host name/],
    ['https://0x7f.1/hook', /private or internal address \(127\.0\.0\.1\)/],
    ['http://93.184.215.14/hook', /must start with https:\/\//],
  ])('when %s is registered, then 400 naming webhook_url', async (url, problem) => {
    const clinic = await strict.createClinic();
    const res = await strict
      .partner(clinic.apiKey)
      .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: url });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.webhook_url).toMatch(problem);
  });

  it('when a name resolves to a private address, then registration is refused naming the address', async () => {
    const clinic = await strict.createClinic();
    const identity = { clinicId: clinic.clinicId, apiKeyId: clinic.apiKeyId };
    const dns = async (name: string) => [
      { address: name === 'inside.partner.example' ? '10.0.0.7' : '93.184.215.14', family: 4 },
    ];
    await expect(
      registerEndpointForPartner(
        strict.ctx,
        identity,
        { clinic_id: clinic.clinicId, webhook_url: 'https://inside.partner.example/hook' },
        partnerAuditContext(identity),
        dns,
      ),
    ).rejects.toMatchObject({
      statusCode: 400,
      details: { webhook_url: 'must not resolve to a private or internal address (inside.partner.example resolves to 10.0.0.7)' },
    });
    const ok = await registerEndpointForPartner(
      strict.ctx,
      identity,
      { clinic_id: clinic.clinicId, webhook_url: 'https://outside.partner.example/hook' },
      partnerAuditContext(identity),
      dns,
    );
    expect(ok.secret).toMatch(/^whsec_/);
  });

  it('when a public https address is registered, then it is accepted', async () => {
    const clinic = await strict.createClinic();
    await registerEndpoint(strict, clinic, 'https://93.184.215.14/hook');
  });

  it('when the operator allows private targets, then an https loopback URL is accepted (and http still is not)', async () => {
    const open = await TestApp.start({ dialect, env: { FULFILLMENT_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    try {
      const clinic = await open.createClinic();
      await registerEndpoint(open, clinic, 'https://127.0.0.1:8443/hook');
      await registerEndpoint(open, clinic, 'https://localhost:8443/hook');
      const http = await open
        .partner(clinic.apiKey)
        .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: 'http://10.0.0.1/hook' });
      expect(http.status).toBe(400);
    } finally {
      await open.close();
    }
  });
});
