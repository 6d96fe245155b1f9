import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/clinics/scopes.js';
import { emptyDatabaseTally, probeDatabases } from '../helpers/database-probe.js';
import { OPERATOR_TOKEN, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const START = Date.parse('2031-05-06T07:08:09.000Z');
const CARRIERS = '/api/external/carriers';
const EXPIRED = 'Unauthorized: API key has expired';

/** The test's clock: moved by hand, never read from the wall. */
function fakeClock(start: number) {
  let now = start;
  return Object.assign(() => new Date(now), {
    advance: (ms: number) => {
      now += ms;
    },
    iso: (offsetMs = 0) => new Date(now + offsetMs).toISOString(),
  });
}

/** Restricted keys, expiry, rolling and last use, through the operator API (issue 20, items 1 and 2). */
describe.each(DIALECTS)('API keys: scopes, expiry, rolling and last use, on %s', (dialect) => {
  const clock = fakeClock(START);
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock });
  });
  afterAll(async () => t.close());

  const issue = (clinicId: string, body?: unknown) => t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`, body);
  const roll = (apiKeyId: string, body: unknown) => t.operator.post(`/api/admin/api-keys/${apiKeyId}/roll`, body);
  const status = async (apiKey: string, url = CARRIERS) => (await t.partner(apiKey).get(url)).status;

  describe('issuing with scopes', () => {
    it('when a key is issued with scopes, then the answer and the listing show them (once each, in the vocabulary\u2019s order), never the key', async () => {
      const { clinicId } = await t.createClinic();
      const res = await issue(clinicId, { scopes: ['carriers:read', 'orders:write', 'carriers:read'] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        scopes: ['orders:write', 'carriers:read'],
        expires_at: null,
        last_used_at: null,
        key_last4: res.body.data.api_key.slice(-4),
      });
      const listing = await t.operator.get(`/api/admin/clinics/${clinicId}/api-keys`);
      const listed = listing.body.data.api_keys.find(
        (key: { api_key_id: string }) => key.api_key_id === res.body.data.api_key_id,
      );
      expect(listed).toMatchObject({ scopes: ['orders:write', 'carriers:read'], key_last4: res.body.data.api_key.slice(-4) });
      expect(JSON.stringify(listing.body)).not.toContain(res.body.data.api_key);
      const row = await t.ctx.db
        .selectFrom('api_keys')
        .select('scopes')
        .where('id', '=', res.body.data.api_key_id)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.scopes ?? 'null')).toEqual(['orders:write', 'carriers:read']);
    });

    it('when a key is issued with every scope of the vocabulary, then it is restricted to them all', async () => {
      const { clinicId } = await t.createClinic();
      const res = await issue(clinicId, { scopes: [...ALL_SCOPES] });
      expect(res.status).toBe(200);
      expect(res.body.data.scopes).toEqual([...ALL_SCOPES]);
    });

    it.each([
      [{ scopes: ['orders:write', 'orders:delete'] }, 'scopes[1]'],
      [{ scopes: ['Orders:read'] }, 'scopes[0]'],
      [{ scopes: ['shipping:read'] }, 'scopes[0]'],
      [{ scopes: [] }, 'scopes'],
      [{ scopes: 'orders:read' }, 'scopes'],
      [{ scopes: [7] }, 'scopes[0]'],
    ])('when a key is issued with %j, then 400 VALIDATION_ERROR naming %s and nothing is stored', async (body, field) => {
      const { clinicId } = await t.createClinic();
      const res = await issue(clinicId, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.error.details)).toEqual([field]);
      expect(res.body.error.message).toContain(field);
      const keys = await t.ctx.db.selectFrom('api_keys').select('id').where('clinic_id', '=', clinicId).execute();
      expect(keys).toHaveLength(1);
    });

    it('when an empty scope list is sent, then the refusal says a key needs at least one scope', async () => {
      const { clinicId } = await t.createClinic();
      const res = await issue(clinicId, { scopes: [] });
      expect(res.body.error.details).toEqual({ scopes: 'must have at least 1 item' });
    });
  });

  describe('expiry at issue', () => {
    it('when a key is issued with expires_in_seconds, then it works until then and gets 401 "API key has expired" after', async () => {
      const { clinicId } = await t.createClinic();
      const res = await issue(clinicId, { expires_in_seconds: 3600 });
      expect(res.status).toBe(200);
      expect(res.body.data.expires_at).toBe(clock.iso(3_600_000));
      const key: string = res.body.data.api_key;
      clock.advance(3_599_000);
      expect(await status(key)).toBe(200);
      clock.advance(1_000);
      const refused = await t.partner(key).get(CARRIERS);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: EXPIRED });
    });

    it.each([[0], [-5], [1.5], ['3600'], [315_360_001]])(
      'when a key is issued with expires_in_seconds %j, then 400 naming expires_in_seconds',
      async (value) => {
        const { clinicId } = await t.createClinic();
        const res = await issue(clinicId, { expires_in_seconds: value });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.error.details)).toEqual(['expires_in_seconds']);
      },
    );
  });

  describe('rolling', () => {
    it('when a key is rolled, then its successor is shown once with the same clinic, environment and scopes, and the old key\u2019s expiry is now + expires_in_seconds', async () => {
      const { clinicId } = await t.createClinic();
      const old = await issue(clinicId, { scopes: ['orders:write', 'carriers:read'] });
      const res = await roll(old.body.data.api_key_id, { expires_in_seconds: 3600 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          api_key_id: expect.any(String),
          api_key: expect.stringMatching(/^dev_[A-Za-z0-9_-]{43}$/),
          clinic_id: clinicId,
          environment: 'development',
          key_prefix: expect.stringMatching(/^dev_/),
          key_last4: expect.any(String),
          scopes: ['orders:write', 'carriers:read'],
          created_at: clock.iso(),
          expires_at: null,
          last_used_at: null,
          previous_key: { api_key_id: old.body.data.api_key_id, expires_at: clock.iso(3_600_000) },
        },
        message: 'API key rolled: store the new key now, it is not shown again',
      });
      expect(res.body.data.api_key).not.toBe(old.body.data.api_key);
      const listing = await t.operator.get(`/api/admin/clinics/${clinicId}/api-keys`);
      // The first key is the one t.createClinic issued.
      expect(listing.body.data.api_keys.slice(1)).toEqual([
        expect.objectContaining({ api_key_id: old.body.data.api_key_id, expires_at: clock.iso(3_600_000), revoked_at: null }),
        expect.objectContaining({
          api_key_id: res.body.data.api_key_id,
          expires_at: null,
          scopes: ['orders:write', 'carriers:read'],
        }),
      ]);
    });

    it('when a key is rolled, then both keys work until the old one\u2019s expiry, after which the old one gets 401 "API key has expired" and the new one still works', async () => {
      const clinic = await t.createClinic();
      const res = await roll(clinic.apiKeyId, { expires_in_seconds: 600 });
      const successor: string = res.body.data.api_key;
      expect([await status(clinic.apiKey), await status(successor)]).toEqual([200, 200]);
      clock.advance(599_999);
      expect([await status(clinic.apiKey), await status(successor)]).toEqual([200, 200]);
      clock.advance(1);
      const refused = await t.partner(clinic.apiKey).get(CARRIERS);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({
        success: false,
        error: { code: 'UNAUTHORIZED', message: EXPIRED, request_id: expect.any(String) },
      });
      expect(await status(successor)).toBe(200);
    });

    it('when a key is rolled with expires_in_seconds 0, then the old key is refused on its very next request', async () => {
      const clinic = await t.createClinic();
      const res = await roll(clinic.apiKeyId, { expires_in_seconds: 0 });
      expect(res.body.data.previous_key.expires_at).toBe(clock.iso());
      expect((await t.partner(clinic.apiKey).get(CARRIERS)).body.error.message).toBe(EXPIRED);
      expect(await status(res.body.data.api_key)).toBe(200);
    });

    it('when a restricted key is rolled, then its successor keeps the scopes: refused outside them, allowed inside', async () => {
      const { clinicId } = await t.createClinic();
      const old = await issue(clinicId, { scopes: ['patients:read'] });
      const res = await roll(old.body.data.api_key_id, { expires_in_seconds: 60 });
      const successor = t.partner(res.body.data.api_key);
      const refused = await successor.get(CARRIERS);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toBe('Forbidden: this API key lacks the scope carriers:read');
      expect((await successor.get(`/api/external/patient/${randomUUID()}`)).status).toBe(404);
    });

    it('when a key already rolled is rolled again with a longer overlap, then its expiry is never pushed later', async () => {
      const clinic = await t.createClinic();
      const first = await roll(clinic.apiKeyId, { expires_in_seconds: 60 });
      const second = await roll(clinic.apiKeyId, { expires_in_seconds: 604_800 });
      expect(second.status).toBe(200);
      expect(second.body.data.previous_key.expires_at).toBe(first.body.data.previous_key.expires_at);
      const shorter = await roll(clinic.apiKeyId, { expires_in_seconds: 30 });
      expect(shorter.body.data.previous_key.expires_at).toBe(clock.iso(30_000));
    });

    it.each([[-1], [604_801], [1.5], ['3600'], [null]])(
      'when the roll body is {"expires_in_seconds": %j}, then 400 naming expires_in_seconds and nothing changes',
      async (value) => {
        const clinic = await t.createClinic();
        const res = await roll(clinic.apiKeyId, { expires_in_seconds: value });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(Object.keys(res.body.error.details)).toEqual(['expires_in_seconds']);
        const rows = await t.ctx.db
          .selectFrom('api_keys')
          .select(['expires_at'])
          .where('clinic_id', '=', clinic.clinicId)
          .execute();
        expect(rows).toEqual([{ expires_at: null }]);
      },
    );

    it('when the roll has no body, an empty one or an unknown field, then 400 naming the field', async () => {
      const clinic = await t.createClinic();
      const none = await t.request('POST', `/api/admin/api-keys/${clinic.apiKeyId}/roll`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      expect(none.status).toBe(400);
      expect((await roll(clinic.apiKeyId, {})).body.error.details).toEqual({ expires_in_seconds: 'is required' });
      const extra = await roll(clinic.apiKeyId, { expires_in_seconds: 60, expires_at: 'tomorrow' });
      expect(extra.body.error.details).toEqual({ expires_at: 'is not a known field' });
    });

    it('when a revoked key is rolled, then 409 CONFLICT says so and no key is issued', async () => {
      const clinic = await t.createClinic();
      await t.operator.delete(`/api/admin/api-keys/${clinic.apiKeyId}`);
      const res = await roll(clinic.apiKeyId, { expires_in_seconds: 60 });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'CONFLICT',
        message: 'API key has been revoked: it cannot be rolled; issue a new key instead',
      });
      const rows = await t.ctx.db.selectFrom('api_keys').select('id').where('clinic_id', '=', clinic.clinicId).execute();
      expect(rows).toHaveLength(1);
    });

    it('when an expired key is rolled, then 409 CONFLICT says it has expired and no key is issued', async () => {
      const clinic = await t.createClinic();
      await roll(clinic.apiKeyId, { expires_in_seconds: 10 });
      clock.advance(10_000);
      const res = await roll(clinic.apiKeyId, { expires_in_seconds: 60 });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toBe('API key has expired: it cannot be rolled; issue a new key instead');
      const rows = await t.ctx.db.selectFrom('api_keys').select('id').where('clinic_id', '=', clinic.clinicId).execute();
      expect(rows).toHaveLength(2);
    });

    it('when an unknown or malformed key id is rolled, then 404 or 400', async () => {
      const missing = await roll(randomUUID(), { expires_in_seconds: 60 });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'API key not found' });
      const malformed = await roll('dev_abc', { expires_in_seconds: 60 });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details).toEqual({ apiKeyId: 'must be a UUID' });
    });

    it('when the old key is revoked during the overlap, then it is refused at once with "has been revoked"', async () => {
      const clinic = await t.createClinic();
      const res = await roll(clinic.apiKeyId, { expires_in_seconds: 3600 });
      await t.operator.delete(`/api/admin/api-keys/${clinic.apiKeyId}`);
      expect((await t.partner(clinic.apiKey).get(CARRIERS)).body.error.message).toBe('Unauthorized: API key has been revoked');
      expect(await status(res.body.data.api_key)).toBe(200);
    });
  });

  describe('last use', () => {
    const lastUsed = async (clinic: TestClinic) =>
      (await t.ctx.db.selectFrom('api_keys').select('last_used_at').where('id', '=', clinic.apiKeyId).executeTakeFirstOrThrow())
        .last_used_at;

    it('when a key is used, then last_used_at is written once the writes are flushed, and the listing shows it', async () => {
      const clinic = await t.createClinic();
      expect(await lastUsed(clinic)).toBeNull();
      const usedAt = clock.iso();
      expect(await status(clinic.apiKey)).toBe(200);
      await t.ctx.keyUsage.flush();
      expect(await lastUsed(clinic)).toBe(usedAt);
      const listing = await t.operator.get(`/api/admin/clinics/${clinic.clinicId}/api-keys`);
      expect(listing.body.data.api_keys[0].last_used_at).toBe(usedAt);
    });

    it('when a key is used many times within a minute, then last_used_at is written once (one UPDATE), and again only a minute later', async () => {
      const clinic = await t.createClinic();
      const firstUse = clock.iso();
      const tally = emptyDatabaseTally();
      const stop = probeDatabases(tally);
      try {
        for (let i = 0; i < 5; i++) expect(await status(clinic.apiKey)).toBe(200);
        await t.ctx.keyUsage.flush();
        clock.advance(59_999);
        for (let i = 0; i < 5; i++) expect(await status(clinic.apiKey)).toBe(200);
        await t.ctx.keyUsage.flush();
      } finally {
        stop();
      }
      const updates = [...tally.sql].filter(([text]) => /^update "api_keys" set "last_used_at"/i.test(text));
      expect(updates.reduce((sum, [, count]) => sum + count, 0)).toBe(1);
      expect(await lastUsed(clinic)).toBe(firstUse);

      clock.advance(1);
      expect(await status(clinic.apiKey)).toBe(200);
      await t.ctx.keyUsage.flush();
      expect(await lastUsed(clinic)).toBe(clock.iso());
    });

    it('when another instance has written the key\u2019s use within the minute, then this one writes nothing', async () => {
      const clinic = await t.createClinic();
      const elsewhere = clock.iso(-30_000);
      await t.ctx.db.updateTable('api_keys').set({ last_used_at: elsewhere }).where('id', '=', clinic.apiKeyId).execute();
      expect(await status(clinic.apiKey)).toBe(200);
      await t.ctx.keyUsage.flush();
      expect(await lastUsed(clinic)).toBe(elsewhere);
    });

    it('when a key is refused (expired), then its last use is not recorded', async () => {
      const clinic = await t.createClinic();
      await roll(clinic.apiKeyId, { expires_in_seconds: 0 });
      expect(await status(clinic.apiKey)).toBe(401);
      await t.ctx.keyUsage.flush();
      expect(await lastUsed(clinic)).toBeNull();
    });
  });
});
