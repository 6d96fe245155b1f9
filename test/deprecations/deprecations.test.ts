import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeCommand } from '../../src/admin/cli-execute.js';
import { parseCommand } from '../../src/admin/cli-commands.js';
import { DeprecationUsageTally } from '../../src/deprecations/usage-tally.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { registerEndpoint } from '../webhooks/support.js';

/** RFC 9110 §5.6.7 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const DEPRECATED_AT = Date.UTC(2026, 10, 25) / 1000;
const SUNSET_AT = Date.UTC(2027, 4, 25);
const LINK = '</docs#/Webhooks/deleteWebhook>; rel="deprecation"; type="text/html"';
const CODE = 'webhook_delete_with_body';

describe.each(DIALECTS)('the deprecated DELETE /api/external/webhook on %s', (dialect) => {
  let t: TestApp;
  /** The injected clock: tests move it to tell first and last sightings apart. */
  let now = Date.parse('2026-12-01T09:00:00.000Z');

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: () => new Date(now) });
  });
  afterAll(async () => t.close());

  const deleteByBody = async (clinic: TestClinic) => {
    const { webhookId } = await registerEndpoint(t, clinic, `https://partner.example.com/hooks/${now}`);
    return t.partner(clinic.apiKey).delete('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: webhookId });
  };
  const usageOf = async () => {
    const res = await t.operator.get('/api/admin/deprecations');
    expect(res.status).toBe(200);
    return res.body.data.deprecations.find((d: { code: string }) => d.code === CODE);
  };

  it('when a partner deletes an endpoint with the body, then it works and the answer carries Deprecation, Sunset and Link exactly', async () => {
    const clinic = await t.createClinic();
    const res = await deleteByBody(clinic);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Webhook deleted successfully');
    expect(res.headers.deprecation).toBe(`@${DEPRECATED_AT}`);
    expect(res.headers.deprecation).toMatch(/^@\d+$/);
    expect(res.headers.sunset).toMatch(IMF_FIXDATE);
    expect(res.headers.sunset).toBe('Tue, 25 May 2027 00:00:00 GMT');
    expect(Date.parse(res.headers.sunset as string)).toBe(SUNSET_AT);
    expect(res.headers.link).toBe(LINK);
    expect(res.headers['api-version']).toBe('1.5.0');
  });

  it('when the deprecated route refuses a request (no key, bad body), then the refusal warns too', async () => {
    const clinic = await t.createClinic();
    const unauthorized = await t.request('DELETE', '/api/external/webhook', {
      headers: { 'content-type': 'application/json' },
      body: { clinic_id: clinic.clinicId, webhook_id: clinic.clinicId },
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.deprecation).toBe(`@${DEPRECATED_AT}`);
    const invalid = await t.partner(clinic.apiKey).delete('/api/external/webhook', { clinic_id: clinic.clinicId });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.sunset).toBe('Tue, 25 May 2027 00:00:00 GMT');
    expect(invalid.headers.link).toBe(LINK);
  });

  it('when a partner deletes by id, then no deprecation header is sent and nothing is counted', async () => {
    const clinic = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, clinic, 'https://partner.example.com/hooks/by-id');
    await t.ctx.deprecationUsage.flush();
    const res = await t.partner(clinic.apiKey).delete(`/api/external/webhook/${webhookId}`);
    expect(res.status).toBe(200);
    for (const header of ['deprecation', 'sunset', 'link']) expect(res.headers[header], header).toBeUndefined();
    expect(t.ctx.deprecationUsage.size).toBe(0);
  });

  it('when the reference is read, then the operation says deprecated: true, with its sunset, and the by-id one does not', async () => {
    const document = (await t.request('GET', '/openapi.json')).body;
    const operation = document.paths['/api/external/webhook'].delete;
    expect(operation.deprecated).toBe(true);
    expect(operation.description).toContain('stops working on 2027-05-25');
    expect(operation.description).toContain('DELETE /api/external/webhook/{webhookId}');
    expect(Object.keys(operation.responses['200'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect(document.paths['/api/external/webhook/{webhookId}'].delete.deprecated).toBeUndefined();
  });

  it('when the Link is followed, then it is an HTML page of this server', async () => {
    const path = LINK.slice(1, LINK.indexOf('>')).split('#')[0] ?? '';
    const res = await t.app.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });

  it('when keys use it, then after a flush the operator sees each key with its count, first and last use (API and command line)', async () => {
    await t.ctx.deprecationUsage.flush();
    const before = (await usageOf()).total_count as number;
    const busy = await t.createClinic();
    const quiet = await t.createClinic();

    now = Date.parse('2026-12-02T08:00:00.000Z');
    expect((await deleteByBody(busy)).status).toBe(200);
    now = Date.parse('2026-12-02T08:30:00.000Z');
    expect((await deleteByBody(quiet)).status).toBe(200);
    now = Date.parse('2026-12-03T17:45:00.000Z');
    expect((await deleteByBody(busy)).status).toBe(200);
    // Counted in memory only, until the flush.
    expect((await usageOf()).total_count).toBe(before);
    expect(t.ctx.deprecationUsage.size).toBe(2);

    await t.ctx.deprecationUsage.flush();
    const entry = await usageOf();
    expect(entry).toMatchObject({
      code: CODE,
      kind: 'route',
      method: 'DELETE',
      route: '/api/external/webhook',
      name: null,
      deprecated_at: '2026-11-25',
      sunset_at: '2027-05-25',
      link: '/docs#/Webhooks/deleteWebhook',
      total_count: before + 3,
    });
    const of = (clinic: TestClinic) => entry.usage.find((u: { credential_id: string }) => u.credential_id === clinic.apiKeyId);
    expect(of(busy)).toEqual({
      credential_type: 'api_key',
      credential_id: busy.apiKeyId,
      clinic_id: busy.clinicId,
      count: 2,
      first_seen_at: '2026-12-02T08:00:00.000Z',
      last_seen_at: '2026-12-03T17:45:00.000Z',
    });
    expect(of(quiet)).toMatchObject({ count: 1, clinic_id: quiet.clinicId, last_seen_at: '2026-12-02T08:30:00.000Z' });
    // The most recently seen first.
    expect(entry.usage[0].credential_id).toBe(busy.apiKeyId);

    const printed = (await executeCommand(t.ctx, parseCommand(['deprecations']))) as { deprecations: unknown[] };
    expect(JSON.parse(JSON.stringify(printed))).toEqual({ deprecations: expect.arrayContaining([entry]) });
    expect(() => parseCommand(['deprecations', '--clinic', busy.clinicId])).toThrow('deprecations does not take --clinic');
  });

  it('when two instances flush counts of the same key at once, then the counts add up and the sightings widen', async () => {
    const clinic = await t.createClinic();
    const identity = { clinicId: clinic.clinicId, apiKeyId: clinic.apiKeyId };
    const logger = { warn: () => undefined };
    const first = new DeprecationUsageTally({ db: t.ctx.db, clock: () => new Date('2026-12-10T10:00:00.000Z'), logger });
    const second = new DeprecationUsageTally({ db: t.ctx.db, clock: () => new Date('2026-12-11T11:00:00.000Z'), logger });
    for (let i = 0; i < 4; i += 1) first.record(CODE, identity);
    for (let i = 0; i < 3; i += 1) second.record(CODE, identity);
    await Promise.all([first.flush(), second.flush()]);
    second.record(CODE, identity);
    await second.close();

    const use = (await usageOf()).usage.find((u: { credential_id: string }) => u.credential_id === clinic.apiKeyId);
    expect(use).toMatchObject({
      count: 8,
      first_seen_at: '2026-12-10T10:00:00.000Z',
      last_seen_at: '2026-12-11T11:00:00.000Z',
    });
  });
});
