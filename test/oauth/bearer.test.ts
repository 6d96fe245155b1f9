import { decodeJwt, generateSecret, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/oauth/access-token.js';
import { practitionerBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';
import { bearer, createClient, FULL, tokenFor, type TestOAuthClient } from './support.js';

const START = Date.parse('2031-05-06T07:08:10.000Z');
const CARRIERS = '/api/external/carriers';
const PRACTITIONER = '/api/external/practitioner';
const LIMIT = 5;

/**
 * Access tokens on the partner API (issue 20, item 3): `Authorization: Bearer` has exactly the rights
 * of an API key with the same scopes, and every refusal is the spec's 401 envelope.
 */
describe.each(DIALECTS)('access tokens on partner routes on %s', (dialect) => {
  const time = fakeClock(START);
  let t: TestApp;
  let clinic: TestClinic;
  let client: TestOAuthClient;
  let token: string;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
    clinic = await t.createClinic();
    client = await createClient(t, clinic.clinicId, { scopes: FULL });
  });
  afterAll(async () => t.close());
  beforeEach(async () => {
    // A minute of its own per test: the per-client counts start again.
    time.advance(60_000);
    token = await tokenFor(t, client);
  });

  const unauthorized = async (accessToken: string, message: string) => {
    const res = await bearer(t, accessToken).get(CARRIERS);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message, request_id: expect.any(String) } });
  };

  it('when a partner route is called with a token, then it answers as for an API key, with the rate-limit headers', async () => {
    const res = await bearer(t, token).get(CARRIERS);
    expect(res.status).toBe(200);
    expect(res.body.data.carriers.length).toBeGreaterThan(0);
    expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('when a token creates a resource, then it lands in the client\u2019s clinic and the audit trail names the client', async () => {
    const res = await bearer(t, token).post(PRACTITIONER, practitionerBody(clinic.clinicId));
    expect(res.status).toBe(200);
    const practitionerId = res.body.data.practitioner_id;
    const row = await t.ctx.db
      .selectFrom('practitioners')
      .select('clinic_id')
      .where('id', '=', practitionerId)
      .executeTakeFirstOrThrow();
    expect(row.clinic_id).toBe(clinic.clinicId);

    const trail = await t.operator.get(`/api/admin/audit-events?resource_id=${practitionerId}`);
    expect(trail.body.data.items).toEqual([
      expect.objectContaining({
        action: 'create',
        actor: { type: 'oauth_client', oauth_client_id: client.clientId, clinic_id: clinic.clinicId },
      }),
    ]);
    const byActor = await t.operator.get(`/api/admin/audit-events?actor_id=${client.clientId}`);
    expect(byActor.body.data.items.map((item: any) => item.resource_id)).toContain(practitionerId);
  });

  it('when a token names another clinic or reads another clinic\u2019s resource, then it is refused as a key would be', async () => {
    const other = await t.createClinic({ name: 'Other Clinic' });
    const theirs = await t.partner(other.apiKey).post(PRACTITIONER, practitionerBody(other.clinicId));
    const crossed = await bearer(t, token).post(PRACTITIONER, practitionerBody(other.clinicId));
    expect(crossed.status).toBe(403);
    expect(crossed.body.error.message).toBe(`Forbidden: your access token does not give access to clinic ${other.clinicId}`);
    expect((await bearer(t, token).get(`${PRACTITIONER}/${theirs.body.data.practitioner_id}`)).status).toBe(404);
  });

  it('when a read-only client\u2019s token writes, then 403 FORBIDDEN names the scope it lacks; its reads pass', async () => {
    const reader = await createClient(t, clinic.clinicId, { scopes: ['practitioners:read', 'carriers:read'] });
    const readOnly = await tokenFor(t, reader);
    const refused = await bearer(t, readOnly).post(PRACTITIONER, practitionerBody(clinic.clinicId));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: 'Forbidden: this access token lacks the scope practitioners:write',
    });
    expect((await bearer(t, readOnly).get(CARRIERS)).status).toBe(200);
  });

  it('when a token was asked with fewer scopes than its client has, then it has only those', async () => {
    const narrowed = await tokenFor(t, client, 'practitioners:read');
    expect((await bearer(t, narrowed).post(PRACTITIONER, practitionerBody(clinic.clinicId))).status).toBe(403);
    expect((await bearer(t, narrowed).get(CARRIERS)).status).toBe(403);
  });

  it('when the client is revoked, then its token is refused on its very next request', async () => {
    const doomed = await createClient(t, clinic.clinicId, { scopes: ['carriers:read'] });
    const doomedToken = await tokenFor(t, doomed);
    expect((await bearer(t, doomedToken).get(CARRIERS)).status).toBe(200);
    expect((await t.operator.delete(`/api/admin/oauth-clients/${doomed.clientId}`)).status).toBe(200);
    await unauthorized(doomedToken, 'Unauthorized: OAuth client has been revoked');
  });

  it('when the token has expired (15 minutes), then 401 says so', async () => {
    time.advance(15 * 60_000 + 6_000);
    await unauthorized(token, 'Unauthorized: access token has expired');
  });

  it('when the token is unsigned (alg none), signed with another key, or altered, then 401 invalid access token', async () => {
    const [header = '', payload = '', signature = ''] = token.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
    const claims = decodeJwt(token);
    const kid = JSON.parse(Buffer.from(header, 'base64url').toString()).kid;
    const otherKey = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
      .sign(await generateSecret('HS256'));
    const escalated = Buffer.from(JSON.stringify({ ...claims, clinic_id: '00000000-0000-4000-8000-000000000000' })).toString(
      'base64url',
    );
    const altered = `${header}.${escalated}.${signature}`;
    for (const forged of [none, otherKey, altered, 'not-a-jwt', ''])
      await unauthorized(forged, 'Unauthorized: invalid access token');
  });

  it('when the token is issued in the future, or by another issuer, then 401 invalid access token', async () => {
    const claims = { clientId: client.clientId, clinicId: clinic.clinicId, environment: 'development' as const, scopes: FULL };
    const future = await signAccessToken({ ...t.ctx, clock: () => new Date(time.now() + 60_000) }, claims);
    const elsewhere = await signAccessToken(
      { ...t.ctx, config: { ...t.ctx.config, oauthIssuer: 'https://elsewhere.example' } },
      claims,
    );
    await unauthorized(future.token, 'Unauthorized: invalid access token');
    await unauthorized(elsewhere.token, 'Unauthorized: invalid access token');
  });

  it('when the token is of the other environment, then 401 says so, as for a key', async () => {
    const claims = { clientId: client.clientId, clinicId: clinic.clinicId, environment: 'production' as const, scopes: FULL };
    const production = await signAccessToken(t.ctx, claims);
    await unauthorized(
      production.token,
      'Unauthorized: this is a production access token; this server is the development environment',
    );
  });

  it('when a request carries both x-api-key and a Bearer token, then the key decides, as before OAuth existed', async () => {
    const readOnly = await tokenFor(t, client, 'carriers:read');
    const withKey = await t.request('POST', PRACTITIONER, {
      headers: { authorization: `Bearer ${readOnly}`, 'x-api-key': clinic.apiKey, 'content-type': 'application/json' },
      body: practitionerBody(clinic.clinicId),
    });
    expect(withKey.status).toBe(200);
    const wrongKey = await t.request('GET', CARRIERS, {
      headers: { authorization: `Bearer ${token}`, 'x-api-key': 'dev_not-a-key' },
    });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body.error.message).toBe('Unauthorized: invalid API key');
  });

  it('when two tokens of one client are used, then they count against one limit per client, as a key\u2019s requests do', async () => {
    const second = await tokenFor(t, client);
    for (let i = 0; i < LIMIT; i++) expect((await bearer(t, i % 2 === 0 ? token : second).get(CARRIERS)).status).toBe(200);
    const refused = await bearer(t, second).get(CARRIERS);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    // Another client of the same clinic counts apart.
    const other = await createClient(t, clinic.clinicId, { scopes: ['carriers:read'] });
    expect((await bearer(t, await tokenFor(t, other)).get(CARRIERS)).status).toBe(200);
  });
});
