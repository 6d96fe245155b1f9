import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { portalSignIn } from '../helpers/portal.js';
import { TestApp, type Reply, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

const CARRIERS = '/api/external/carriers';
const HOUR = 3_600_000;

describe.each(DIALECTS)('the portal’s API keys on %s', (dialect) => {
  const clock = fakeClock(Date.parse('2031-05-06T09:00:00.000Z'));
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;
  let developer: Record<string, string>;
  let viewer: Record<string, string>;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    clinic = await t.createClinic({ name: 'Portal Clinic' });
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());
  // Sessions of their own per test: a test that moves the clock past a session's idle timeout ends it.
  beforeEach(async () => {
    developer = (await portalSignIn(t, clinic.clinicId, 'developer')).headers;
    viewer = (await portalSignIn(t, clinic.clinicId, 'viewer')).headers;
  });

  const call = (headers: Record<string, string>, method: 'GET' | 'POST', url: string, body?: unknown): Promise<Reply> =>
    t.request(method, url, {
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body,
    });
  const keyRows = async () => t.ctx.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
  const carriers = (apiKey: string) => t.partner(apiKey).get(CARRIERS);

  it('when a viewer lists the keys, then it sees its clinic’s keys only, with when each was last used and never a secret', async () => {
    expect((await carriers(clinic.apiKey)).status).toBe(200);
    await t.ctx.keyUsage.flush();
    const res = await call(viewer, 'GET', '/api/portal/keys');
    expect(res.status).toBe(200);
    const ids = res.body.data.api_keys.map((key: { api_key_id: string }) => key.api_key_id);
    expect(ids).toContain(clinic.apiKeyId);
    expect(ids).not.toContain(other.apiKeyId);
    const key = res.body.data.api_keys.find((k: { api_key_id: string }) => k.api_key_id === clinic.apiKeyId);
    expect(key.last_used_at).toBe(clock.clock().toISOString());
    expect(key.revoked_at).toBeNull();
    expect(JSON.stringify(res.body)).not.toContain(clinic.apiKey);
    expect(key).not.toHaveProperty('secret');
  });

  it('when a viewer creates, rolls or revokes a key, then it is refused with 403 and nothing changes', async () => {
    const before = await keyRows();
    for (const [url, body] of [
      ['/api/portal/keys', {}],
      [`/api/portal/keys/${clinic.apiKeyId}/roll`, { expires_in_hours: 1 }],
      [`/api/portal/keys/${clinic.apiKeyId}/revoke`, undefined],
    ] as const) {
      const res = await call(viewer, 'POST', url, body);
      expect(res.status, url).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect(await keyRows()).toEqual(before);
    expect((await carriers(clinic.apiKey)).status).toBe(200);
  });

  it('when a developer creates a key, then its secret is shown once and works, and the list shows the key without it', async () => {
    const expiresAt = new Date(clock.now() + 30 * 24 * HOUR).toISOString();
    const res = await call(developer, 'POST', '/api/portal/keys', { scopes: ['orders:read'], expires_at: expiresAt });
    expect(res.status).toBe(200);
    const { api_key: key, secret } = res.body.data;
    expect(secret).toMatch(/^dev_/);
    expect(key).toMatchObject({ scopes: ['orders:read'], expires_at: expiresAt, revoked_at: null, last_used_at: null });
    expect(secret.startsWith(key.key_prefix)).toBe(true);
    expect((await t.partner(secret).get('/api/external/medication-orders')).status).toBe(200);
    // Restricted to orders: the carriers need another scope.
    expect((await carriers(secret)).status).toBe(403);
    const list = await call(developer, 'GET', '/api/portal/keys');
    expect(list.body.data.api_keys.map((k: { api_key_id: string }) => k.api_key_id)).toContain(key.api_key_id);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    const row = await t.ctx.db.selectFrom('api_keys').selectAll().where('id', '=', key.api_key_id).executeTakeFirstOrThrow();
    expect(row.clinic_id).toBe(clinic.clinicId);
    const audit = await t.ctx.db.selectFrom('audit_events').selectAll().where('resource_id', '=', key.api_key_id).execute();
    expect(audit.map((r) => [r.action, r.actor_type, r.clinic_id])).toEqual([['create', 'partner_user', clinic.clinicId]]);
  });

  it('when a developer creates a key with no body, then it has full access and no expiry', async () => {
    const res = await t.request('POST', '/api/portal/keys', { headers: developer });
    expect(res.status).toBe(200);
    expect(res.body.data.api_key).toMatchObject({ scopes: null, expires_at: null });
    expect((await carriers(res.body.data.secret)).status).toBe(200);
  });

  it('when the expiry is past, or the body has an unknown field, then 400 names the field', async () => {
    const past = await call(developer, 'POST', '/api/portal/keys', { expires_at: new Date(clock.now() - 1000).toISOString() });
    expect(past.status).toBe(400);
    expect(Object.keys(past.body.error.details)).toEqual(['expires_at']);
    const unknown = await call(developer, 'POST', '/api/portal/keys', { environment: 'production' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.error.details)).toContain('environment');
    const hours = await call(developer, 'POST', `/api/portal/keys/${clinic.apiKeyId}/roll`, { expires_in_hours: 169 });
    expect(hours.status).toBe(400);
    expect(Object.keys(hours.body.error.details)).toEqual(['expires_in_hours']);
  });

  it('when a developer rolls a key, then the new secret works, and the old key works until its expiry and is refused after', async () => {
    const fresh = await call(developer, 'POST', '/api/portal/keys', {});
    const old = fresh.body.data as { api_key: { api_key_id: string }; secret: string };
    const res = await call(developer, 'POST', `/api/portal/keys/${old.api_key.api_key_id}/roll`, { expires_in_hours: 2 });
    expect(res.status).toBe(200);
    const rolled = res.body.data;
    expect(rolled.previous_key).toEqual({
      api_key_id: old.api_key.api_key_id,
      expires_at: new Date(clock.now() + 2 * HOUR).toISOString(),
    });
    expect(rolled.api_key.api_key_id).not.toBe(old.api_key.api_key_id);
    expect(rolled.secret).not.toBe(old.secret);
    expect((await carriers(rolled.secret)).status).toBe(200);
    expect((await carriers(old.secret)).status).toBe(200);
    clock.advance(2 * HOUR - 1);
    expect((await carriers(old.secret)).status).toBe(200);
    clock.advance(1);
    const refused = await carriers(old.secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/expired/);
    expect((await carriers(rolled.secret)).status).toBe(200);
    const actions = await t.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type'])
      .where('resource_id', 'in', [old.api_key.api_key_id, rolled.api_key.api_key_id])
      .where('action', '!=', 'create')
      .execute();
    expect(actions).toEqual([{ action: 'roll', actor_type: 'partner_user' }]);
  });

  it('when a developer rolls with no body, then the old key keeps working 24 hours', async () => {
    const fresh = (await call(developer, 'POST', '/api/portal/keys', {})).body.data;
    const res = await t.request('POST', `/api/portal/keys/${fresh.api_key.api_key_id}/roll`, { headers: developer });
    expect(res.status).toBe(200);
    expect(res.body.data.previous_key.expires_at).toBe(new Date(clock.now() + 24 * HOUR).toISOString());
  });

  it('when a developer revokes a key, then its next request is refused and the answer shows the revocation', async () => {
    const fresh = (await call(developer, 'POST', '/api/portal/keys', {})).body.data;
    expect((await carriers(fresh.secret)).status).toBe(200);
    const res = await call(developer, 'POST', `/api/portal/keys/${fresh.api_key.api_key_id}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ api_key_id: fresh.api_key.api_key_id, revoked_at: clock.clock().toISOString() });
    const refused = await carriers(fresh.secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/revoked/);
    const rolled = await call(developer, 'POST', `/api/portal/keys/${fresh.api_key.api_key_id}/roll`, {});
    expect(rolled.status).toBe(409);
  });

  it('when a developer names another clinic’s key or an unknown one, then 404 and the key is untouched', async () => {
    const before = await keyRows();
    for (const id of [other.apiKeyId, '00000000-0000-4000-8000-000000000000']) {
      for (const url of [`/api/portal/keys/${id}/roll`, `/api/portal/keys/${id}/revoke`]) {
        const res = await call(developer, 'POST', url, url.endsWith('roll') ? { expires_in_hours: 0 } : undefined);
        expect(res.status, url).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'API key not found' });
      }
    }
    expect(await keyRows()).toEqual(before);
    expect((await carriers(other.apiKey)).status).toBe(200);
  });
});
