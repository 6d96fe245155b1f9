import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fastEnv, registerEndpoint } from './support.js';

describe.each(DIALECTS)('the webhook test call on %s', (dialect) => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...script: Parameters<typeof WebhookReceiver.start>) => {
    const r = await WebhookReceiver.start(...script);
    receivers.push(r);
    return r;
  };
  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: fastEnv() });
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => t.close());

  it('when the endpoint answers 2xx, then the answer says delivered with the status and timing, and the receiver verifies a webhook.test event', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 204, body: '' }]);
    const { webhookId, secret } = await registerEndpoint(t, clinic, r.url());
    const res = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        webhook_id: webhookId,
        delivery_id: expect.any(String),
        event_id: expect.any(String),
        event_type: 'webhook.test',
        delivered: true,
        status_code: 204,
        attempted_at: expect.any(String),
        duration_ms: expect.any(Number),
        error: null,
      },
      message: 'Test event delivered (HTTP 204)',
    });
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.headers['webhook-id']).toBe(res.body.data.event_id);
    expect(WebhookReceiver.verify(secret, r.received[0]!)).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { webhook_id: webhookId, clinic_id: clinic.clinicId, message: expect.any(String) },
    });

    const logged = await t.operator.get(`/api/admin/webhook-deliveries/${res.body.data.delivery_id}`);
    expect(logged.body.data).toMatchObject({
      event_type: 'webhook.test',
      status: 'delivered',
      attempt_count: 1,
      webhook_id: webhookId,
      // A test call is about no order.
      medication_request_id: null,
    });
    expect(logged.body.data.attempts).toEqual([
      {
        attempt_number: 1,
        attempted_at: res.body.data.attempted_at,
        duration_ms: res.body.data.duration_ms,
        response_status: 204,
        response_body: null,
        error: null,
        throttled: false,
      },
    ]);
  });

  it('when the endpoint answers 500, then the answer is still 200 describing the failure, and nothing is retried or counted against the endpoint', async () => {
    const clinic = await t.createClinic();
    const r = await receiver([{ status: 500, body: 'database down' }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const res = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ delivered: false, status_code: 500, error: null });
    expect(res.body.message).toBe('Test event not delivered: HTTP 500');
    const delivery = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', res.body.data.delivery_id)
      .executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null, last_error: 'HTTP 500' });
    const endpoint = await t.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', webhookId)
      .executeTakeFirstOrThrow();
    expect(endpoint.failing_since).toBeNull();
  });

  it('when the endpoint cannot be reached, then the answer says network_error, without the error text', async () => {
    const clinic = await t.createClinic();
    const r = await receiver();
    const url = r.url();
    await r.stop();
    const { webhookId } = await registerEndpoint(t, clinic, url);
    const res = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ delivered: false, status_code: null, error: 'network_error' });
    expect(res.body.message).toBe('Test event not delivered: the endpoint could not be reached (connection, TLS or DNS failure)');
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    // The operator's log keeps the detail.
    const logged = await t.operator.get(`/api/admin/webhook-deliveries/${res.body.data.delivery_id}`);
    expect(logged.body.data.attempts[0].error).toMatch(/ECONNREFUSED/);
  });

  it("when the receiver answers with a body and headers (an internal service's data), then the partner sees only the status and the time; the operator's log keeps the body", async () => {
    const clinic = await t.createClinic();
    const secretish = 'INTERNAL-ADMIN-PANEL root:x:0:0 token=abc123';
    const r = await receiver([{ status: 403, body: secretish, headers: { 'x-internal-service': 'billing-db-7' } }]);
    const { webhookId } = await registerEndpoint(t, clinic, r.url());
    const res = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual([
      'attempted_at',
      'delivered',
      'delivery_id',
      'duration_ms',
      'error',
      'event_id',
      'event_type',
      'status_code',
      'webhook_id',
    ]);
    expect(res.body.data).toMatchObject({ delivered: false, status_code: 403, error: null });
    expect(JSON.stringify(res.body)).not.toMatch(/INTERNAL-ADMIN-PANEL|billing-db-7/);
    expect(JSON.stringify(res.headers)).not.toMatch(/billing-db-7/);
    const logged = await t.operator.get(`/api/admin/webhook-deliveries/${res.body.data.delivery_id}`);
    expect(logged.body.data.attempts[0].response_body).toBe(secretish);
  });

  it("when the webhook is unknown or another clinic's, then 404; when another clinic is named, then 403", async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    const theirs = await registerEndpoint(t, other, 'https://partner.example.com/other');
    const unknown = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('Webhook not found');
    const foreign = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: theirs.webhookId });
    expect(foreign.status).toBe(404);
    const scope = await t
      .partner(clinic.apiKey)
      .post('/api/external/webhook/test', { clinic_id: other.clinicId, webhook_id: theirs.webhookId });
    expect(scope.status).toBe(403);
  });
});
