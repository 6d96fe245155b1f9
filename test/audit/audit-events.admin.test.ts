import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { registerEndpoint, fakeClock } from '../webhooks/support.js';

describe.each(DIALECTS)('GET /api/admin/audit-events on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse('2030-04-01T09:00:00.000Z'));
  let a: TestClinic;
  let b: TestClinic;
  let patientA: string;
  let patientB: string;
  const requestIds: string[] = [];

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    a = await t.createClinic();
    b = await t.createClinic();
    // Clinic A: a patient created then read twice; clinic B: a patient created. One second apart.
    time.advance(1000);
    patientA = (await t.partner(a.apiKey).post('/api/external/patient', patientBody(a.clinicId))).body.data.patient_id;
    for (let i = 0; i < 2; i++) {
      time.advance(1000);
      requestIds.push(String((await t.partner(a.apiKey).get(`/api/external/patient/${patientA}`)).headers['x-request-id']));
    }
    time.advance(1000);
    patientB = (await t.partner(b.apiKey).post('/api/external/patient', patientBody(b.clinicId))).body.data.patient_id;
    await t.ctx.audit.flush();
  });
  afterAll(async () => t.close());

  const list = async (query: string) => {
    const res = await t.operator.get(`/api/admin/audit-events${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { items: any[]; next_cursor: string | null };
  };

  it('when a resource is asked for, then its events come newest first, each with its actor, action and request', async () => {
    const page = await list(`?resource_id=${patientA}`);
    expect(page.next_cursor).toBeNull();
    expect(page.items.map((e) => e.action)).toEqual(['read', 'read', 'create']);
    expect(page.items[0]).toEqual({
      audit_event_id: expect.any(String),
      at: '2030-04-01T09:00:03.000Z',
      actor: { type: 'partner', api_key_id: a.apiKeyId, clinic_id: a.clinicId },
      actor_name: null,
      clinic_id: a.clinicId,
      action: 'read',
      resource_type: 'patient',
      resource_id: patientA,
      request_id: requestIds[1],
      client_request_id: null,
      client_address: '127.0.0.1',
      resource_clinic_id: null,
    });
  });

  it('when filtered by clinic and action, then only those events are listed', async () => {
    expect((await list(`?clinic_id=${a.clinicId}&action=read`)).items.map((e) => e.request_id)).toEqual([
      requestIds[1],
      requestIds[0],
    ]);
    expect((await list(`?clinic_id=${b.clinicId}`)).items.map((e) => [e.action, e.resource_id])).toEqual([['create', patientB]]);
    expect((await list(`?clinic_id=${b.clinicId}&action=read`)).items).toEqual([]);
  });

  it('when the list is longer than the limit, then it comes a page at a time with a cursor', async () => {
    const first = await list(`?clinic_id=${a.clinicId}&limit=2`);
    expect(first.items.map((e) => e.action)).toEqual(['read', 'read']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await list(`?clinic_id=${a.clinicId}&limit=2&cursor=${first.next_cursor ?? ''}`);
    expect(second.items.map((e) => [e.action, e.resource_id])).toEqual([['create', patientA]]);
    expect(second.next_cursor).toBeNull();
  });

  it('when the operator token reads and asks for its own reads, then the event names the operator token and the clinic of what was read', async () => {
    const clinic = await t.createClinic();
    const { webhookId } = await registerEndpoint(t, clinic, 'https://partner.example.com/audit');
    time.advance(1000);
    await t.operator.get(`/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}`);
    await t.ctx.audit.flush();
    const [read] = (await list(`?resource_id=${webhookId}&action=read&include_own_reads=true`)).items;
    expect(read).toMatchObject({
      actor: { type: 'operator' },
      actor_name: 'Operator token',
      clinic_id: clinic.clinicId,
      action: 'read',
      resource_type: 'webhook_endpoint',
      resource_id: webhookId,
    });
  });

  it('when the cursor, the limit or a filter is not valid, then 400 names the parameter', async () => {
    const badCursor = await t.operator.get('/api/admin/audit-events?cursor=garbage');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.details).toEqual({
      cursor: 'is not a cursor this API returned (pass next_cursor from the previous page)',
    });
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'action=steal', 'clinic_id=nope']) {
      const res = await t.operator.get(`/api/admin/audit-events?${query}`);
      expect(res.status, query).toBe(400);
      expect(Object.keys(res.body.error.details ?? {}), query).toEqual([query.split('=')[0]]);
    }
  });

  it('when the operator token is missing, then 401', async () => {
    expect((await t.request('GET', '/api/admin/audit-events')).status).toBe(401);
    expect((await t.partner(a.apiKey).get('/api/admin/audit-events')).status).toBe(401);
  });

  it('when the OpenAPI document is read, then the route is listed under the operator tag with its filters', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const route = doc.paths['/api/admin/audit-events'].get;
    expect(route.tags).toEqual(['Operator']);
    // Every operation also documents the optional Api-Version header (docs/versioning.md).
    expect(route.parameters.map((p: any) => p.name).sort()).toEqual([
      'Api-Version',
      'action',
      'actor_id',
      'actor_type',
      'clinic_id',
      'cursor',
      'from',
      'include_own_reads',
      'limit',
      'resource_id',
      'resource_type',
      'to',
    ]);
  });
});
