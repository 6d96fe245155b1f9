import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { clientKeyPair, createClient } from './support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NO_ROW = '00000000-0000-4000-8000-000000000000';

describe.each(DIALECTS)('operator OAuth clients on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  const clients = (clinicId: string) => `/api/admin/clinics/${clinicId}/oauth-clients`;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());

  it('when a client is created with scopes, then its id and secret are answered once, with its scopes, environment and method', async () => {
    const res = await t.operator.post(clients(clinic.clinicId), { scopes: ['orders:write', 'carriers:read'] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      client_id: expect.stringMatching(UUID),
      client_secret: expect.stringMatching(/^cs_dev_[A-Za-z0-9_-]{43}$/),
      clinic_id: clinic.clinicId,
      environment: 'development',
      scopes: ['orders:write', 'carriers:read'],
      token_endpoint_auth_method: 'client_secret_basic',
      created_at: expect.stringMatching(ISO),
    });
  });

  it('when a client is created, then the database holds only the SHA-256 of its secret, never the secret', async () => {
    const res = await t.operator.post(clients(clinic.clinicId), { scopes: ['patients:read'] });
    const { client_id: clientId, client_secret: secret } = res.body.data;
    const row = await t.ctx.db.selectFrom('oauth_clients').selectAll().where('id', '=', clientId).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret.slice(7, 20));
  });

  it('when a clinic\u2019s clients are listed, then each shows its scopes and state and none shows a secret', async () => {
    const other = await t.createClinic({ name: 'Listed Clinic' });
    const first = await createClient(t, other.clinicId, { scopes: ['orders:read'] });
    await createClient(t, other.clinicId, { scopes: ['webhooks:write'], environment: 'production' });
    await t.operator.delete(`/api/admin/oauth-clients/${first.clientId}`);

    const res = await t.operator.get(clients(other.clinicId));
    expect(res.status).toBe(200);
    expect(res.body.data.oauth_clients).toEqual([
      expect.objectContaining({ client_id: first.clientId, scopes: ['orders:read'], revoked_at: expect.stringMatching(ISO) }),
      expect.objectContaining({ scopes: ['webhooks:write'], environment: 'production', revoked_at: null }),
    ]);
    expect(JSON.stringify(res.body)).not.toContain(first.secret);
    for (const listed of res.body.data.oauth_clients) expect(listed).not.toHaveProperty('client_secret');
  });

  it('when the scopes name one that does not exist, then 400 VALIDATION_ERROR names the field', async () => {
    const res = await t.operator.post(clients(clinic.clinicId), { scopes: ['orders:write', 'orders:delete'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(res.body.error.details)).toEqual(['scopes[1]']);
    expect(res.body.error.message).toContain('scopes[1]');
  });

  it('when the scopes are missing or empty, then 400 VALIDATION_ERROR names the field', async () => {
    for (const body of [{}, { scopes: [] }]) {
      const res = await t.operator.post(clients(clinic.clinicId), body);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toHaveProperty('scopes');
    }
  });

  it('when the clinic does not exist, then 404 and nothing is created', async () => {
    const res = await t.operator.post(clients(NO_ROW), { scopes: ['orders:read'] });
    expect(res.status).toBe(404);
    expect((await t.operator.get(clients(NO_ROW))).status).toBe(404);
    const rows = await t.ctx.db.selectFrom('oauth_clients').select('id').where('clinic_id', '=', NO_ROW).execute();
    expect(rows).toEqual([]);
  });

  it('when a client is created with public keys, then it is a private_key_jwt client without a secret', async () => {
    const { jwk } = await clientKeyPair();
    const res = await t.operator.post(clients(clinic.clinicId), { scopes: ['orders:read'], jwks: { keys: [jwk] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ client_secret: null, token_endpoint_auth_method: 'private_key_jwt' });
    const row = await t.ctx.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', res.body.data.client_id)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).toBeNull();
    expect(JSON.parse(row.jwks!)).toEqual({ keys: [jwk] });
  });

  it('when the keys hold a private key, a symmetric key or no valid key, then 400 names the key', async () => {
    const { privateKey } = await clientKeyPair();
    const { exportJWK } = await import('jose');
    const cases: [unknown, string][] = [
      [await exportJWK(privateKey), 'jwks.keys[0].d'],
      [{ kty: 'oct', k: 'c2VjcmV0' }, 'jwks.keys[0].kty'],
      [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'BBBB' }, 'jwks.keys[0]'],
    ];
    for (const [key, field] of cases) {
      const res = await t.operator.post(clients(clinic.clinicId), { scopes: ['orders:read'], jwks: { keys: [key] } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual([field]);
    }
  });

  it('when a client is revoked, then the answer says when, and revoking it again is harmless', async () => {
    const client = await createClient(t, clinic.clinicId, { scopes: ['orders:read'] });
    const first = await t.operator.delete(`/api/admin/oauth-clients/${client.clientId}`);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ client_id: client.clientId, revoked_at: expect.stringMatching(ISO) });
    const second = await t.operator.delete(`/api/admin/oauth-clients/${client.clientId}`);
    expect(second.body.data.revoked_at).toBe(first.body.data.revoked_at);
    expect((await t.operator.delete(`/api/admin/oauth-clients/${NO_ROW}`)).status).toBe(404);
  });

  it('when no operator credential is sent, then the client routes answer 401', async () => {
    const res = await t.request('POST', clients(clinic.clinicId), {
      headers: { 'content-type': 'application/json' },
      body: { scopes: ['orders:read'] },
    });
    expect(res.status).toBe(401);
  });
});
