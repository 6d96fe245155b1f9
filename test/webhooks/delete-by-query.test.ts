import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { registerEndpoint } from './support.js';

const DEPRECATED_AT = Date.UTC(2026, 10, 25) / 1000;
const SUNSET = 'Tue, 25 May 2027 00:00:00 GMT';
const LINK = '</docs#/Webhooks/deleteWebhook>; rel="deprecation"; type="text/html"';

/**
 * Issue 22: the original system's clients delete a webhook with `DELETE /api/external/webhook?id=…`
 * and no body. Accepted, as a deprecated form of the deprecated route (same sunset), counted apart.
 */
describe.each(DIALECTS)('DELETE /api/external/webhook?id= on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinic = await t.createClinic();
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  let n = 0;
  const register = async (owner = clinic) =>
    (await registerEndpoint(t, owner, `https://partner.example.com/hooks/${dialect}/${(n += 1)}`)).webhookId;
  const deleteByQuery = (query: string, body?: unknown) =>
    t.partner(clinic.apiKey).delete(`/api/external/webhook?${query}`, body);
  const status = async (webhookId: string) =>
    (await t.ctx.db.selectFrom('webhook_endpoints').select('deleted_at').where('id', '=', webhookId).executeTakeFirstOrThrow())
      .deleted_at;
  const usage = async (code: string): Promise<{ total_count: number; usage: { credential_id: string; count: number }[] }> => {
    await t.ctx.deprecationUsage.flush();
    const res = await t.operator.get('/api/admin/deprecations');
    return res.body.data.deprecations.find((d: { code: string }) => d.code === code);
  };

  it('when a partner deletes with ?id= and no body, then the endpoint is deleted and the answer carries Deprecation, Sunset and Link', async () => {
    const webhookId = await register();
    const res = await deleteByQuery(`id=${webhookId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { webhook_id: webhookId }, message: 'Webhook deleted successfully' });
    expect(res.headers.deprecation).toBe(`@${DEPRECATED_AT}`);
    expect(res.headers.sunset).toBe(SUNSET);
    expect(res.headers.link).toBe(LINK);
    expect(await status(webhookId)).not.toBeNull();
  });

  it('when the ?id= form is used, then the operator sees it counted for the key under its own code', async () => {
    const before = (await usage('webhook_delete_with_query_id')).total_count;
    expect((await deleteByQuery(`id=${await register()}`)).status).toBe(200);
    const entry = await usage('webhook_delete_with_query_id');
    expect(entry).toMatchObject({ kind: 'parameter', name: 'id', deprecated_at: '2026-11-25', sunset_at: '2027-05-25' });
    expect(entry.total_count).toBe(before + 1);
    expect(entry.usage.find((u) => u.credential_id === clinic.apiKeyId)?.count).toBeGreaterThanOrEqual(1);
  });

  it('when the body form is used, then the ?id= form is not counted', async () => {
    const before = (await usage('webhook_delete_with_query_id')).total_count;
    const webhookId = await register();
    const res = await t
      .partner(clinic.apiKey)
      .delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: webhookId });
    expect(res.status).toBe(200);
    expect((await usage('webhook_delete_with_query_id')).total_count).toBe(before);
  });

  it('when ?id= is not a UUID, then 400 names id and the deprecation headers are there', async () => {
    const res = await deleteByQuery('id=42');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual({ id: 'must be a UUID' });
    expect(res.headers.sunset).toBe(SUNSET);
  });

  it('when ?id= is sent twice, then 400 names id', async () => {
    const res = await deleteByQuery(`id=${await register()}&id=${await register()}`);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['id']);
  });

  it('when ?id= names another clinic\u2019s endpoint, then 404 and it is kept', async () => {
    const foreign = await register(other);
    const res = await deleteByQuery(`id=${foreign}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(await status(foreign)).toBeNull();
  });

  it('when a body names one endpoint and ?id= another, then 400 names id and neither is deleted', async () => {
    const [first, second] = [await register(), await register()];
    const res = await deleteByQuery(`id=${second}`, { clinic_id: clinic.clinicId, webhook_id: first });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['id']);
    expect(await status(first)).toBeNull();
    expect(await status(second)).toBeNull();
  });

  it('when neither a body nor ?id= is sent, then 400 as before', async () => {
    const res = await deleteByQuery('other=1');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('when the reference is read, then id is a deprecated query parameter and the body is not required', async () => {
    const operation = (await t.request('GET', '/openapi.json')).body.paths['/api/external/webhook'].delete;
    const id = operation.parameters.find((p: { name: string; in: string }) => p.name === 'id' && p.in === 'query');
    expect(id.schema.format).toBe('uuid');
    expect(id.required).toBeFalsy();
    expect(JSON.stringify(id)).toContain('"deprecated":true');
    expect(operation.requestBody.required).toBe(false);
    expect(operation.description).toContain('?id=');
  });
});
