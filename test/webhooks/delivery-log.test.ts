import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { auditRows } from '../audit/support.js';
import { allPages, expectFieldRefused } from '../helpers/pages.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fakeClock, fastEnv, registerEndpoint } from './support.js';

const LOG = '/api/external/webhook/deliveries';

describe.each(DIALECTS)('the partner\u2019s webhook delivery log on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let otherClinic: TestClinic;
  let receiver: WebhookReceiver;
  let first: string;
  let second: string;
  let otherWebhook: string;
  /** The test calls made, oldest first: [delivery id, endpoint id]. */
  const calls: [string, string][] = [];
  // A second between test calls: "newest first" is then the calls' order reversed.
  const time = fakeClock();

  async function testCall(who: TestClinic, webhookId: string): Promise<string> {
    time.advance(1000);
    const res = await t
      .partner(who.apiKey)
      .post('/api/external/webhook/test', { clinic_id: who.clinicId, webhook_id: webhookId });
    expect(res.status).toBe(200);
    return res.body.data.delivery_id;
  }

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: fastEnv(), clock: time.clock });
    receiver = await WebhookReceiver.start([{ status: 204 }, { status: 500, body: 'internal detail' }, { status: 204 }]);
    clinic = await t.createClinic();
    otherClinic = await t.createClinic({ name: 'Other Clinic' });
    first = (await registerEndpoint(t, clinic, receiver.url('/first'))).webhookId;
    second = (await registerEndpoint(t, clinic, receiver.url('/second'))).webhookId;
    otherWebhook = (await registerEndpoint(t, otherClinic, receiver.url('/other'))).webhookId;
    calls.push([await testCall(clinic, first), first]); // 204
    calls.push([await testCall(clinic, first), first]); // 500
    calls.push([await testCall(clinic, second), second]); // 204
    await testCall(otherClinic, otherWebhook);
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });

  const idsOf = (res: { body: any }) => res.body.data.items.map((d: any) => d.delivery_id);

  it('when a partner lists its deliveries, then it sees its own only, newest first, each with its attempts', async () => {
    const res = await t.partner(clinic.apiKey).get(LOG);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Webhook deliveries retrieved successfully');
    expect(idsOf(res)).toEqual(calls.map(([id]) => id).reverse());
    expect(res.body.data.next_cursor).toBeNull();
    const failed = res.body.data.items[1];
    expect(failed).toEqual({
      delivery_id: calls[1]![0],
      event_id: expect.any(String),
      event_type: 'webhook.test',
      webhook_id: first,
      webhook_url: receiver.url('/first'),
      status: 'failed',
      attempt_count: 1,
      next_attempt_at: null,
      delivered_at: null,
      created_at: expect.any(String),
      attempts: [
        {
          attempt_number: 1,
          attempted_at: expect.any(String),
          duration_ms: expect.any(Number),
          status_code: 500,
          error: null,
          throttled: false,
        },
      ],
    });
    // The endpoint's response body is never returned.
    expect(JSON.stringify(res.body)).not.toContain('internal detail');
    expect(res.body.data.items[0].attempts[0]).toMatchObject({ status_code: 204, error: null });
  });

  it('when the endpoint cannot be reached, then the attempt says network_error and nothing of the error text', async () => {
    const own = await t.createClinic();
    const down = await WebhookReceiver.start();
    const { webhookId } = await registerEndpoint(t, own, down.url());
    await down.stop();
    await testCall(own, webhookId);
    const res = await t.partner(own.apiKey).get(LOG);
    expect(res.body.data.items[0].attempts).toEqual([
      {
        attempt_number: 1,
        attempted_at: expect.any(String),
        duration_ms: expect.any(Number),
        status_code: null,
        error: 'network_error',
        throttled: false,
      },
    ]);
  });

  it('when webhook_id, status or event_type is given, then only the matching deliveries are listed', async () => {
    const partner = t.partner(clinic.apiKey);
    expect(idsOf(await partner.get(`${LOG}?webhook_id=${second}`))).toEqual([calls[2]![0]]);
    expect(idsOf(await partner.get(`${LOG}?status=failed`))).toEqual([calls[1]![0]]);
    expect(idsOf(await partner.get(`${LOG}?status=delivered&webhook_id=${first}`))).toEqual([calls[0]![0]]);
    expect(idsOf(await partner.get(`${LOG}?event_type=webhook.test`))).toHaveLength(3);
    expect(idsOf(await partner.get(`${LOG}?event_type=order.created`))).toEqual([]);
  });

  it('when webhook_id is another clinic\u2019s endpoint, then the page is empty', async () => {
    const res = await t.partner(clinic.apiKey).get(`${LOG}?webhook_id=${otherWebhook}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [], next_cursor: null });
  });

  it('when the deliveries are more than `limit`, then the pages hold each once, newest first', async () => {
    const pages = await allPages(t, clinic, `${LOG}?limit=2`);
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    expect(pages.flat().map((d) => d.delivery_id)).toEqual(calls.map(([id]) => id).reverse());
  });

  it('when a query field is invalid, then 400 names it', async () => {
    for (const [query, field] of [
      ['status=lost', 'status'],
      ['event_type=order.shipped', 'event_type'],
      ['webhook_id=1', 'webhook_id'],
      ['limit=101', 'limit'],
      ['cursor=x', 'cursor'],
      ['clinic_id=x', 'clinic_id'],
    ] as const) {
      await expectFieldRefused(t, clinic, `${LOG}?${query}`, field);
    }
  });

  it('when a page is listed, then each delivery on it is audited as read by the partner\u2019s key', async () => {
    const key = await issueApiKey(t.ctx, clinic.clinicId, null);
    const res = await t.partner(key.api_key).get(`${LOG}?limit=2`);
    const rows = (await auditRows(t.ctx)).filter((r) => r.actor_id === key.api_key_id);
    expect(rows.map((r) => [r.action, r.resource_type, r.resource_id, r.clinic_id]).sort()).toEqual(
      idsOf(res)
        .map((id: string) => ['read', 'webhook_delivery', id, clinic.clinicId])
        .sort(),
    );
  });
});

describe.each(DIALECTS)('DELETE /api/external/webhook/{webhookId} on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: fastEnv() });
  });
  afterAll(async () => t.close());

  it('when a partner deletes its endpoint by path, then it answers as the body form does and the endpoint is gone', async () => {
    const clinic = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, clinic, 'https://partner.example.com/hook');
    const res = await t.partner(clinic.apiKey).delete(`/api/external/webhook/${webhookId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { webhook_id: webhookId }, message: 'Webhook deleted successfully' });
    const listed = await t.partner(clinic.apiKey).get('/api/external/webhook');
    expect(listed.body.data).toEqual([]);
    const again = await t.partner(clinic.apiKey).delete(`/api/external/webhook/${webhookId}`);
    const againByBody = await t
      .partner(clinic.apiKey)
      .delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual({ ...againByBody.body.error, request_id: expect.any(String) });
    const rows = (await auditRows(t.ctx)).filter((r) => r.resource_id === webhookId && r.action === 'delete');
    expect(rows).toHaveLength(1);
  });

  it('when the endpoint is another clinic\u2019s, then 404 and it stays', async () => {
    const owner = await t.createClinic();
    const stranger = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, owner, 'https://owner.example.com/hook');
    const res = await t.partner(stranger.apiKey).delete(`/api/external/webhook/${webhookId}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const listed = await t.partner(owner.apiKey).get('/api/external/webhook');
    expect(listed.body.data.map((w: any) => w.webhook_id)).toEqual([webhookId]);
  });

  it('when the id is not a UUID, then 400 names webhookId', async () => {
    const clinic = await t.createClinic();
    const res = await t.partner(clinic.apiKey).delete('/api/external/webhook/not-a-uuid');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toContain('webhookId');
  });
});
