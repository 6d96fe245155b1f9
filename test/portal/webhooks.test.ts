import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { auditRows } from '../audit/support.js';
import { portalRequest, portalSignIn } from '../helpers/portal.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesOf, emitEvent, fakeClock, fastEnv, registerEndpoint, settle } from '../webhooks/support.js';

const HOUR = 60 * 60 * 1000;

/**
 * The partner portal's webhooks (docs/portal.md, "Webhooks") over HTTP, as the portal page calls
 * them: a developer changes, a viewer reads, another clinic's ids are not found.
 */
describe.each(DIALECTS)('the partner portal\u2019s webhooks on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;
  let developer: Record<string, string>;
  let viewer: Record<string, string>;
  let stranger: Record<string, string>;
  let developerEmail: string;
  const receivers: WebhookReceiver[] = [];
  const time = fakeClock();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock, env: fastEnv() });
    clinic = await t.createClinic();
    other = await t.createClinic();
    const signedIn = await portalSignIn(t, clinic.clinicId, 'developer');
    [developer, developerEmail] = [signedIn.headers, signedIn.email];
    viewer = (await portalSignIn(t, clinic.clinicId, 'viewer')).headers;
    stranger = (await portalSignIn(t, other.clinicId, 'developer')).headers;
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
    // Each test starts with no endpoint: events of the next one reach only its own.
    const now = time.clock().toISOString();
    await t.ctx.db.updateTable('webhook_endpoints').set({ deleted_at: now }).where('deleted_at', 'is', null).execute();
  });
  afterAll(async () => t.close());

  const receiver = async (...script: Parameters<typeof WebhookReceiver.start>) => {
    const r = await WebhookReceiver.start(...script);
    receivers.push(r);
    return r;
  };
  const call = (headers: Record<string, string>, method: string, url: string, body?: unknown) =>
    portalRequest(t, headers, method, url, body);
  const stored = (webhookId: string) =>
    t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', webhookId).executeTakeFirstOrThrow();
  /** A clinic with an endpoint at a new receiver, registered through the partner API. */
  const endpointOf = async (owner: TestClinic, script?: Parameters<typeof WebhookReceiver.start>[0]) => {
    const r = await receiver(script);
    return { receiver: r, ...(await registerEndpoint(t, owner, r.url())) };
  };
  /** An event of the clinic, delivered (or failed) to its one endpoint: the delivery. */
  const deliverEvent = async (owner: TestClinic) => {
    const eventId = await emitEvent(t.ctx, owner.clinicId);
    const worker = new WebhookWorker(t.ctx);
    try {
      const deliveries = await settle(worker, t.ctx, time, eventId);
      expect(deliveries).toHaveLength(1);
      return deliveries[0]!;
    } finally {
      await worker.stop();
    }
  };

  it('when a developer adds an endpoint, then the answer holds it and its secret once, and a viewer lists it without the secret', async () => {
    const r = await receiver();
    const res = await call(developer, 'POST', '/api/portal/webhooks', { url: r.url('/portal'), max_in_flight: 4 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const webhook = {
      webhook_id: expect.any(String),
      url: r.url('/portal'),
      status: 'active',
      max_in_flight: 4,
      max_per_second: null,
      event_types: null,
      paused_until: null,
      failing_since: null,
      disabled_reason: null,
      created_at: time.clock().toISOString(),
      previous_secret_expires_at: null,
    };
    expect(res.body.data).toEqual({ webhook, secret: expect.stringMatching(/^whsec_/) });

    const listed = await call(viewer, 'GET', '/api/portal/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body.data.webhooks).toContainEqual({ ...webhook, webhook_id: res.body.data.webhook.webhook_id });
    expect(JSON.stringify(listed.body)).not.toContain(res.body.data.secret);
    expect((await call(stranger, 'GET', '/api/portal/webhooks')).body.data.webhooks).toEqual([]);

    const rows = (await auditRows(t.ctx)).filter((row) => row.resource_id === res.body.data.webhook.webhook_id);
    expect(rows).toContainEqual(
      expect.objectContaining({ action: 'create', actor_type: 'partner_user', actor_email: developerEmail }),
    );
  });

  it('when an added URL is malformed or already registered, then 400 naming url, as the partner API refuses it', async () => {
    const { receiver: r } = await endpointOf(clinic);
    const bad = await call(developer, 'POST', '/api/portal/webhooks', { url: 'ftp://partner.example/hooks' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details)).toEqual(['url']);
    const twice = await call(developer, 'POST', '/api/portal/webhooks', { url: r.url() });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details).toEqual({ url: 'is already registered for this clinic' });
  });

  it('when a viewer asks for any change, then 403 and nothing changes', async () => {
    const { webhookId, receiver: r } = await endpointOf(clinic, [{ status: 500 }]);
    const delivery = await deliverEvent(clinic);
    const before = await stored(webhookId);
    const deliveryBefore = (await deliveriesOf(t.ctx, delivery.event_id))[0];
    const received = r.received.length;
    const changes: [string, string, unknown?][] = [
      ['POST', '/api/portal/webhooks', { url: r.url('/viewer') }],
      ['PATCH', `/api/portal/webhooks/${webhookId}`, { max_in_flight: 1 }],
      ['POST', `/api/portal/webhooks/${webhookId}/disable`],
      ['POST', `/api/portal/webhooks/${webhookId}/enable`],
      ['POST', `/api/portal/webhooks/${webhookId}/rotate-secret`, { previous_valid_hours: 1 }],
      ['POST', `/api/portal/webhooks/${webhookId}/test`],
      ['POST', `/api/portal/webhooks/${webhookId}/recover`, {}],
      ['POST', `/api/portal/deliveries/${delivery.id}/resend`],
    ];
    for (const [method, url, body] of changes) {
      const res = await call(viewer, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect(await stored(webhookId)).toEqual(before);
    expect((await deliveriesOf(t.ctx, delivery.event_id))[0]).toEqual(deliveryBefore);
    expect(r.received).toHaveLength(received);
    const listed = await call(viewer, 'GET', '/api/portal/webhooks');
    expect(listed.body.data.webhooks.map((w: { url: string }) => w.url)).not.toContain(r.url('/viewer'));
  });

  it("when another clinic's endpoint or delivery id is used, then 404 on every route and nothing changes", async () => {
    const { webhookId, receiver: r } = await endpointOf(clinic, [{ status: 500 }]);
    const delivery = await deliverEvent(clinic);
    const before = await stored(webhookId);
    const received = r.received.length;
    const routes: [string, string, unknown?][] = [
      ['PATCH', `/api/portal/webhooks/${webhookId}`, { max_in_flight: 1 }],
      ['POST', `/api/portal/webhooks/${webhookId}/disable`],
      ['POST', `/api/portal/webhooks/${webhookId}/enable`],
      ['POST', `/api/portal/webhooks/${webhookId}/rotate-secret`],
      ['POST', `/api/portal/webhooks/${webhookId}/test`],
      ['POST', `/api/portal/webhooks/${webhookId}/recover`, {}],
      ['GET', `/api/portal/deliveries/${delivery.id}`],
      ['POST', `/api/portal/deliveries/${delivery.id}/resend`],
    ];
    for (const [method, url, body] of routes) {
      const res = await call(stranger, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const filtered = await call(stranger, 'GET', `/api/portal/deliveries?webhook_id=${webhookId}`);
    expect(filtered.body.data).toEqual({ items: [], next_cursor: null });
    expect(await stored(webhookId)).toEqual(before);
    expect(r.received).toHaveLength(received);
  });

  it('when a delivery failed, then the filters find it with every attempt, and a resend delivers it with the same webhook-id', async () => {
    const { webhookId, receiver: r } = await endpointOf(clinic, [{ status: 500 }]);
    const createdAt = time.clock().toISOString();
    const delivery = await deliverEvent(clinic);
    expect(delivery.status).toBe('failed');

    const since = encodeURIComponent(createdAt);
    const until = encodeURIComponent(new Date(Date.parse(createdAt) + 1).toISOString());
    const found = await call(
      viewer,
      'GET',
      `/api/portal/deliveries?status=failed&event_type=order.created&webhook_id=${webhookId}&since=${since}&until=${until}`,
    );
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.data).toEqual({
      items: [
        {
          delivery_id: delivery.id,
          event_id: delivery.event_id,
          event_type: 'order.created',
          webhook_id: webhookId,
          url: r.url(),
          status: 'failed',
          attempt_count: 3,
          last_response_status: 500,
          last_error: 'HTTP 500',
          next_attempt_at: null,
          created_at: createdAt,
          delivered_at: null,
        },
      ],
      next_cursor: null,
    });
    for (const query of [
      `status=delivered&webhook_id=${webhookId}`,
      `webhook_id=${webhookId}&until=${since}`,
      `webhook_id=${webhookId}&since=${until}`,
    ]) {
      expect((await call(viewer, 'GET', `/api/portal/deliveries?${query}`)).body.data.items, query).toEqual([]);
    }

    const detail = await call(viewer, 'GET', `/api/portal/deliveries/${delivery.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.attempts).toEqual(
      Array.from({ length: 3 }, () => ({
        attempted_at: expect.any(String),
        response_status: 500,
        duration_ms: expect.any(Number),
        error: null,
        throttled: false,
      })),
    );

    r.respondWith({ status: 204 });
    const resent = await call(developer, 'POST', `/api/portal/deliveries/${delivery.id}/resend`);
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect(resent.body.data).toMatchObject({
      delivery_id: delivery.id,
      status: 'pending',
      next_attempt_at: time.clock().toISOString(),
    });
    const worker = new WebhookWorker(t.ctx);
    await worker.drain();
    await worker.stop();
    expect(r.received.at(-1)!.headers['webhook-id']).toBe(delivery.event_id);
    const after = await call(viewer, 'GET', `/api/portal/deliveries/${delivery.id}`);
    expect(after.body.data).toMatchObject({ status: 'delivered', attempt_count: 4, last_error: null });
    expect(after.body.data.attempts.at(-1)).toMatchObject({ response_status: 204, error: null });
  });

  it('when an attempt got no answer, then the portal shows only the kind of failure, never the error text', async () => {
    const { webhookId, receiver: r } = await endpointOf(clinic);
    await r.stop();
    const delivery = await deliverEvent(clinic);
    expect(delivery.last_error).toMatch(/ECONNREFUSED/);
    const listed = await call(viewer, 'GET', `/api/portal/deliveries?webhook_id=${webhookId}`);
    expect(listed.body.data.items[0]).toMatchObject({ last_response_status: null, last_error: 'network_error' });
    const detail = await call(viewer, 'GET', `/api/portal/deliveries/${delivery.id}`);
    expect(detail.body.data.attempts[0]).toMatchObject({ response_status: null, error: 'network_error' });
    expect(JSON.stringify([listed.body, detail.body])).not.toMatch(/ECONNREFUSED|connect /);
  });

  it('when a developer enables an endpoint that is active, then nothing changes: its failure count is kept', async () => {
    const { webhookId } = await endpointOf(clinic);
    const failingSince = time.clock().toISOString();
    await t.ctx.db.updateTable('webhook_endpoints').set({ failing_since: failingSince }).where('id', '=', webhookId).execute();
    const res = await call(developer, 'POST', `/api/portal/webhooks/${webhookId}/enable`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'active', failing_since: failingSince });
    expect((await stored(webhookId)).failing_since).toBe(failingSince);
  });

  it('when the deliveries are more than a page, then keyset pages give each once, newest first', async () => {
    const { webhookId } = await endpointOf(clinic);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.unshift((await deliverEvent(clinic)).id);
      time.advance(1000);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query = `webhook_id=${webhookId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await call(viewer, 'GET', `/api/portal/deliveries?${query}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.items.map((d: { delivery_id: string }) => d.delivery_id));
      cursor = page.body.data.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(ids);
    const bad = await call(viewer, 'GET', '/api/portal/deliveries?limit=101');
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details)).toEqual(['limit']);
  });

  it('when a developer changes limits, disables and enables an endpoint, then each answer is the endpoint and each change is audited as theirs', async () => {
    const { webhookId } = await endpointOf(clinic, [{ status: 500 }]);
    const patched = await call(developer, 'PATCH', `/api/portal/webhooks/${webhookId}`, { max_in_flight: 3, max_per_second: 5 });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ webhook_id: webhookId, max_in_flight: 3, max_per_second: 5 });

    // A delivery waiting for its retry when the endpoint is disabled is marked failed.
    const eventId = await emitEvent(t.ctx, clinic.clinicId);
    const worker = new WebhookWorker(t.ctx);
    await worker.drain();
    await worker.stop();
    expect((await deliveriesOf(t.ctx, eventId))[0]!.status).toBe('pending');

    const disabled = await call(developer, 'POST', `/api/portal/webhooks/${webhookId}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.data).toMatchObject({
      status: 'disabled',
      disabled_reason: `disabled in the partner portal by ${developerEmail}`,
    });
    expect((await deliveriesOf(t.ctx, eventId))[0]).toMatchObject({ status: 'failed', next_attempt_at: null });
    const recover = await call(developer, 'POST', `/api/portal/webhooks/${webhookId}/recover`, {});
    expect(recover.status).toBe(409);

    const enabled = await call(developer, 'POST', `/api/portal/webhooks/${webhookId}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ status: 'active', disabled_reason: null, failing_since: null });
    const recovered = await call(developer, 'POST', `/api/portal/webhooks/${webhookId}/recover`);
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(200);
    expect(recovered.body.data).toEqual({ requeued: 1 });

    const rows = (await auditRows(t.ctx)).filter((row) => row.resource_id === webhookId && row.actor_type === 'partner_user');
    // Limits, disable, enable, recover (at one moment of the test's clock: in no particular order).
    expect(rows.map((row) => row.action).sort()).toEqual(['retry', 'update', 'update', 'update']);
    expect(new Set(rows.map((row) => row.actor_email))).toEqual(new Set([developerEmail]));
  });

  it('when a developer rotates the secret, then the answer holds the new secret and the window, and the test event carries both signatures', async () => {
    const { webhookId, secret: old, receiver: r } = await endpointOf(clinic);
    const res = await call(developer, 'POST', `/api/portal/webhooks/${webhookId}/rotate-secret`, { previous_valid_hours: 6 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expiresAt = new Date(time.now() + 6 * HOUR).toISOString();
    expect(res.body.data).toEqual({
      webhook: expect.objectContaining({ webhook_id: webhookId, previous_secret_expires_at: expiresAt }),
      secret: expect.stringMatching(/^whsec_/),
    });
    const test = await call(developer, 'POST', `/api/portal/webhooks/${webhookId}/test`);
    expect(test.status).toBe(200);
    expect(test.body.data).toMatchObject({ webhook_id: webhookId, event_type: 'webhook.test', delivered: true });
    const request = r.received.at(-1)!;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [res.body.data.secret, old]) {
      expect(WebhookReceiver.verify(secret, request, time.clock()).type).toBe('webhook.test');
    }
    const listed = await call(viewer, 'GET', '/api/portal/webhooks');
    expect(listed.body.data.webhooks).toContainEqual(
      expect.objectContaining({ webhook_id: webhookId, previous_secret_expires_at: expiresAt }),
    );
  });
});
