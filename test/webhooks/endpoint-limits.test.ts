import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../audit/support.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock, registerEndpoint } from './support.js';

/**
 * The partner's delivery limits of an endpoint (issue 18): `max_in_flight` and `max_per_second` at
 * registration and through `PATCH /api/external/webhook/{webhookId}`, and what the views show of the
 * engine's push-back (`paused_until`, an attempt's `throttled`). The engine's enforcement is tested
 * with the engine.
 */

const URL_A = 'https://partner.example.com/hooks/limits';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const NEEDS_A_CHANGE = 'must change at least one of max_in_flight, max_per_second, event_types';

const BAD_IN_FLIGHT: [string, unknown][] = [
  ['0', 0],
  ['51', 51],
  ['2.5', 2.5],
  ['"10"', '10'],
  ['-1', -1],
  ['null', null],
  ['true', true],
];
const BAD_PER_SECOND: [string, unknown][] = [
  ['0', 0],
  ['1001', 1001],
  ['2.5', 2.5],
  ['"10"', '10'],
  ['-1', -1],
  ['true', true],
  ['{}', {}],
];

for (const dialect of DIALECTS) {
  describe(`webhook endpoint limits on ${dialect}`, () => {
    let t: TestApp;
    const time = fakeClock();
    beforeAll(async () => {
      t = await TestApp.start({ dialect, clock: time.clock });
    });
    afterAll(async () => t.close());

    const listed = async (clinic: TestClinic, webhookId: string) => {
      const res = await t.partner(clinic.apiKey).get('/api/external/webhook');
      expect(res.status).toBe(200);
      return res.body.data.find((endpoint: any) => endpoint.webhook_id === webhookId);
    };
    const operatorView = async (clinic: TestClinic, webhookId: string) => {
      const res = await t.operator.get(`/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}`);
      expect(res.status).toBe(200);
      return res.body.data.endpoints.find((endpoint: any) => endpoint.webhook_id === webhookId);
    };
    const stored = (webhookId: string) =>
      t.ctx.db
        .selectFrom('webhook_endpoints')
        .select(['max_in_flight', 'max_per_second'])
        .where('id', '=', webhookId)
        .executeTakeFirstOrThrow();
    const patch = (clinic: TestClinic, webhookId: string, body?: unknown) =>
      t.partner(clinic.apiKey).patch(`/api/external/webhook/${webhookId}`, body);

    describe('registration', () => {
      it('when an endpoint is registered without limits, then it is listed with 10 in flight, no per-second limit and no pause', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        expect(await listed(clinic, webhookId)).toMatchObject({ max_in_flight: 10, max_per_second: null, paused_until: null });
        expect(await stored(webhookId)).toEqual({ max_in_flight: 10, max_per_second: null });
      });

      it('when an endpoint is registered with limits, then the list and the operator show them', async () => {
        const clinic = await t.createClinic();
        const res = await t.partner(clinic.apiKey).post('/api/external/webhook', {
          clinic_id: clinic.clinicId,
          webhook_url: URL_A,
          max_in_flight: 50,
          max_per_second: 1000,
        });
        expect(res.status).toBe(200);
        const webhookId = res.body.data.webhook_id;
        expect(await listed(clinic, webhookId)).toMatchObject({ max_in_flight: 50, max_per_second: 1000 });
        expect(await operatorView(clinic, webhookId)).toMatchObject({
          max_in_flight: 50,
          max_per_second: 1000,
          paused_until: null,
        });
      });

      it('when max_per_second is null and max_in_flight is 1 at registration, then they are accepted as no limit and 1', async () => {
        const clinic = await t.createClinic();
        const res = await t.partner(clinic.apiKey).post('/api/external/webhook', {
          clinic_id: clinic.clinicId,
          webhook_url: URL_A,
          max_in_flight: 1,
          max_per_second: null,
        });
        expect(res.status).toBe(200);
        expect(await stored(res.body.data.webhook_id)).toEqual({ max_in_flight: 1, max_per_second: null });
      });

      it.each(BAD_IN_FLIGHT)(
        'when max_in_flight is %s at registration, then 400 names it and nothing is registered',
        async (_name, value) => {
          const clinic = await t.createClinic();
          const res = await t
            .partner(clinic.apiKey)
            .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: URL_A, max_in_flight: value });
          expect(res.status).toBe(400);
          expect(res.body.error).toMatchObject({
            code: 'VALIDATION_ERROR',
            details: { max_in_flight: 'must be a whole number from 1 to 50' },
          });
          expect(res.body.error.message).toContain('max_in_flight');
          expect((await t.partner(clinic.apiKey).get('/api/external/webhook')).body.data).toEqual([]);
        },
      );

      it.each(BAD_PER_SECOND)(
        'when max_per_second is %s at registration, then 400 names it and nothing is registered',
        async (_name, value) => {
          const clinic = await t.createClinic();
          const res = await t
            .partner(clinic.apiKey)
            .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: URL_A, max_per_second: value });
          expect(res.status).toBe(400);
          expect(res.body.error).toMatchObject({
            code: 'VALIDATION_ERROR',
            details: { max_per_second: 'must be a whole number from 1 to 1000, or null for no limit' },
          });
          expect((await t.partner(clinic.apiKey).get('/api/external/webhook')).body.data).toEqual([]);
        },
      );

      it('when a limit is sent in camelCase, then 400 says which field was meant', async () => {
        const clinic = await t.createClinic();
        const res = await t
          .partner(clinic.apiKey)
          .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: URL_A, maxInFlight: 5 });
        expect(res.status).toBe(400);
        expect(res.body.error.details).toEqual({ maxInFlight: 'is not a known field; did you mean max_in_flight?' });
      });
    });

    describe('PATCH /api/external/webhook/{webhookId}', () => {
      it('when a partner changes both limits, then 200 answers the endpoint as changed, as the list and the operator show it', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        const res = await patch(clinic, webhookId, { max_in_flight: 3, max_per_second: 20 });
        expect(res.status).toBe(200);
        const item = await listed(clinic, webhookId);
        expect(res.body).toEqual({ success: true, data: item, message: 'Webhook updated successfully' });
        expect(item).toEqual({
          webhook_id: webhookId,
          clinic_id: clinic.clinicId,
          webhook_url: URL_A,
          status: 'active',
          disabled_at: null,
          disabled_reason: null,
          created_at: expect.any(String),
          max_in_flight: 3,
          max_per_second: 20,
          event_types: null,
          paused_until: null,
        });
        expect(await operatorView(clinic, webhookId)).toEqual({ ...item, failing_since: null });
      });

      it('when only max_in_flight is sent, then max_per_second is kept; when max_per_second is null, then the limit is removed', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        expect((await patch(clinic, webhookId, { max_per_second: 7 })).status).toBe(200);
        expect((await patch(clinic, webhookId, { max_in_flight: 50 })).body.data).toMatchObject({
          max_in_flight: 50,
          max_per_second: 7,
        });
        const cleared = await patch(clinic, webhookId, { max_per_second: null });
        expect(cleared.status).toBe(200);
        expect(cleared.body.data).toMatchObject({ max_in_flight: 50, max_per_second: null });
        expect(await stored(webhookId)).toEqual({ max_in_flight: 50, max_per_second: null });
      });

      it('when the body is empty or absent, then 400 names the fields to send and nothing changes', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        for (const body of [{}, undefined]) {
          const res = await patch(clinic, webhookId, body);
          expect(res.status, JSON.stringify(body)).toBe(400);
          expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { body: NEEDS_A_CHANGE } });
          expect(res.body.error.message).toContain('max_in_flight, max_per_second');
        }
        expect(await stored(webhookId)).toEqual({ max_in_flight: 10, max_per_second: null });
      });

      it('when the body holds an unknown field, then 400 names it and nothing changes', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        const res = await patch(clinic, webhookId, { max_in_flight: 5, webhook_url: 'https://partner.example.com/other' });
        expect(res.status).toBe(400);
        expect(res.body.error.details).toEqual({ webhook_url: 'is not a known field' });
        const hinted = await patch(clinic, webhookId, { maxPerSecond: 5 });
        expect(hinted.body.error.details).toEqual({ maxPerSecond: 'is not a known field; did you mean max_per_second?' });
        expect(await stored(webhookId)).toEqual({ max_in_flight: 10, max_per_second: null });
      });

      it.each(BAD_IN_FLIGHT)('when max_in_flight is %s, then 400 names it and nothing changes', async (_name, value) => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        const res = await patch(clinic, webhookId, { max_in_flight: value, max_per_second: 5 });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          details: { max_in_flight: 'must be a whole number from 1 to 50' },
        });
        expect(await stored(webhookId)).toEqual({ max_in_flight: 10, max_per_second: null });
      });

      it.each(BAD_PER_SECOND)('when max_per_second is %s, then 400 names it and nothing changes', async (_name, value) => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        const res = await patch(clinic, webhookId, { max_per_second: value });
        expect(res.status).toBe(400);
        expect(res.body.error.details).toEqual({ max_per_second: 'must be a whole number from 1 to 1000, or null for no limit' });
        expect(await stored(webhookId)).toEqual({ max_in_flight: 10, max_per_second: null });
      });

      it('when the endpoint is another clinic\u2019s, then 404 "Webhook not found" and it is unchanged', async () => {
        const owner = await t.createClinic();
        const stranger = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, owner, URL_A);
        const res = await patch(stranger, webhookId, { max_in_flight: 1 });
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Webhook not found' });
        expect(await stored(webhookId)).toEqual({ max_in_flight: 10, max_per_second: null });
        const rows = (await auditRows(t.ctx)).filter((r) => r.resource_id === webhookId && r.action === 'update');
        expect(rows).toEqual([]);
      });

      it('when the endpoint is unknown or deleted, then 404 "Webhook not found", as the DELETE answers', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        expect((await t.partner(clinic.apiKey).delete(`/api/external/webhook/${webhookId}`)).status).toBe(200);
        for (const id of [webhookId, UNKNOWN_ID]) {
          const res = await patch(clinic, id, { max_in_flight: 1 });
          expect(res.status, id).toBe(404);
          expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Webhook not found' });
        }
        expect(await stored(webhookId)).toEqual({ max_in_flight: 10, max_per_second: null });
      });

      it('when the id is not a UUID, then 400 names webhookId', async () => {
        const clinic = await t.createClinic();
        const res = await patch(clinic, 'not-a-uuid', { max_in_flight: 1 });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.error.details)).toContain('webhookId');
      });

      it('when the endpoint is disabled, then its limits can still be changed', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        await t.ctx.db
          .updateTable('webhook_endpoints')
          .set({ status: 'disabled', disabled_at: time.clock().toISOString(), disabled_reason: 'the endpoint answered 410 Gone' })
          .where('id', '=', webhookId)
          .execute();
        const res = await patch(clinic, webhookId, { max_in_flight: 2 });
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ status: 'disabled', max_in_flight: 2 });
      });

      it('when the limits are changed, then the audit trail holds one update of the endpoint by the partner\u2019s key', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        const res = await patch(clinic, webhookId, { max_per_second: 50 });
        const rows = (await auditRows(t.ctx)).filter((r) => r.resource_id === webhookId && r.action !== 'create');
        expect(rows).toEqual([
          expect.objectContaining({
            action: 'update',
            resource_type: 'webhook_endpoint',
            actor_type: 'partner',
            actor_id: clinic.apiKeyId,
            clinic_id: clinic.clinicId,
            request_id: res.headers['x-request-id'],
          }),
        ]);
      });
    });

    describe('the receiver\u2019s push-back in the views', () => {
      it('when the endpoint is held until a later time, then paused_until shows it; once that time has passed, null', async () => {
        const clinic = await t.createClinic();
        const { webhookId } = await registerEndpoint(t, clinic, URL_A);
        const until = new Date(time.now() + 60_000).toISOString();
        await t.ctx.db.updateTable('webhook_endpoints').set({ paused_until: until }).where('id', '=', webhookId).execute();
        expect((await listed(clinic, webhookId)).paused_until).toBe(until);
        expect((await operatorView(clinic, webhookId)).paused_until).toBe(until);
        expect((await patch(clinic, webhookId, { max_in_flight: 4 })).body.data.paused_until).toBe(until);
        time.advance(60_000);
        expect((await listed(clinic, webhookId)).paused_until).toBeNull();
        expect((await operatorView(clinic, webhookId)).paused_until).toBeNull();
      });

      it('when an attempt was throttled, then the partner\u2019s log and the operator\u2019s delivery show throttled: true', async () => {
        const clinic = await t.createClinic();
        // A closed port: the test call fails at once, and its attempt is recorded.
        const { webhookId } = await registerEndpoint(t, clinic, 'http://127.0.0.1:9/hooks');
        const call = await t
          .partner(clinic.apiKey)
          .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
        const deliveryId = call.body.data.delivery_id;
        const log = async () => (await t.partner(clinic.apiKey).get('/api/external/webhook/deliveries')).body.data.items[0];
        expect((await log()).attempts).toEqual([expect.objectContaining({ throttled: false })]);
        // As the engine records a 429 (the test call never does).
        await t.ctx.db
          .updateTable('webhook_delivery_attempts')
          .set({ throttled: 1, response_status: 429, error: null })
          .where('delivery_id', '=', deliveryId)
          .execute();
        expect((await log()).attempts).toEqual([expect.objectContaining({ status_code: 429, error: null, throttled: true })]);
        const detail = await t.operator.get(`/api/admin/webhook-deliveries/${deliveryId}`);
        expect(detail.body.data.attempts).toEqual([expect.objectContaining({ response_status: 429, throttled: true })]);
      });
    });
  });
}
