import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientRequestIdOf } from '../../src/http/request-id.js';
import { auditRows } from '../audit/support.js';
import { CapturedLogs } from '../helpers/captured-logs.js';
import { practitionerBody } from '../helpers/fixtures.js';
import { TestApp } from '../helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// The request id is pure HTTP plumbing: one dialect is enough.
describe('X-Request-Id', () => {
  let t: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    ({ apiKey } = await t.createClinic());
  });
  afterAll(async () => t.close());

  it('when a request carries no X-Request-Id, then the response carries a fresh UUID', async () => {
    const a = await t.request('GET', '/healthz');
    const b = await t.request('GET', '/healthz');
    expect(a.headers['x-request-id']).toMatch(UUID);
    expect(b.headers['x-request-id']).toMatch(UUID);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it.each([
    ['a UUID', '0b6c9a8e-3f0e-4c1a-9d7e-2a5b6c7d8e9f'],
    ['a trace-style id', 'req_01HZX3KJ5Q.retry-2:edge@lb1'],
    ['with spaces and markup', '<my request> id'],
    ['128 characters', 'a'.repeat(128)],
  ])(
    'when a client sends its own X-Request-Id (%s), then the answer carries a fresh id of the server, on success and on errors',
    async (_name, id) => {
      const ok = await t.request('GET', '/healthz', { headers: { 'x-request-id': id } });
      expect(ok.headers['x-request-id']).toMatch(UUID);
      const refused = await t.request('GET', '/api/external/carriers', { headers: { 'x-request-id': id } });
      expect(refused.status).toBe(401);
      expect(refused.headers['x-request-id']).toMatch(UUID);
      expect(refused.headers['x-request-id']).not.toBe(id);
      expect(refused.body.error.request_id).toBe(refused.headers['x-request-id']);
    },
  );

  it('when two requests send the same X-Request-Id, then each gets its own id', async () => {
    const a = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'same-id' } });
    const b = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'same-id' } });
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it.each([
    ['a usable id', ' trace-42 ', 'trace-42'],
    ['128 printable characters', 'x'.repeat(128), 'x'.repeat(128)],
    ['129 characters', 'x'.repeat(129), null],
    ['a control character', 'abc\tdef', null],
    ['non-ASCII', 'r\u00e9quete', null],
    ['only spaces', '   ', null],
  ])('when the client\u2019s X-Request-Id is %s, then it is kept bounded and printable, or dropped', (_name, sent, kept) => {
    expect(clientRequestIdOf({ headers: { 'x-request-id': sent } })).toBe(kept);
  });

  it('when a partner sends its own X-Request-Id, then the audit row and the log line keep it as the client\u2019s beside the server\u2019s id', async () => {
    const logs = new CapturedLogs();
    const app = await TestApp.start({ dialect: 'sqlite', logStream: logs.stream });
    try {
      const clinic = await app.createClinic();
      const created = await app.request('POST', '/api/external/practitioner', {
        headers: {
          'x-api-key': clinic.apiKey,
          accept: 'application/json',
          'content-type': 'application/json',
          'x-request-id': 'partner-trace-7',
        },
        body: practitionerBody(clinic.clinicId),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const serverId = String(created.headers['x-request-id']);
      expect(serverId).toMatch(UUID);
      const rows = (await auditRows(app.ctx)).filter((row) => row.request_id === serverId);
      expect(rows).toEqual([
        expect.objectContaining({ action: 'create', request_id: serverId, client_request_id: 'partner-trace-7' }),
      ]);
      const trail = await app.operator.get(`/api/admin/audit-events?resource_id=${created.body.data.practitioner_id}`);
      expect(trail.body.data.items[0]).toMatchObject({ request_id: serverId, client_request_id: 'partner-trace-7' });
      const completed = logs.lines(serverId).filter((line) => line.msg === 'request completed');
      expect(completed).toEqual([expect.objectContaining({ reqId: serverId, clientRequestId: 'partner-trace-7' })]);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['a 401', 'GET', '/api/external/carriers', {}],
    ['a 404 outside the API', 'GET', '/no/such/page', {}],
    ['a 405', 'DELETE', '/healthz', {}],
    ['a 406', 'GET', '/api/external/carriers', { accept: 'text/html' }],
    ['an operator 401', 'GET', '/api/admin/clinics', {}],
  ])(
    'when the response is %s, then error.request_id equals the X-Request-Id header',
    async (_name, method, url, headers: Record<string, string>) => {
      const res = await t.request(method, url, {
        headers: { ...headers, ...(url.startsWith('/api/external') && headers.accept ? { 'x-api-key': apiKey } : {}) },
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.body.error.request_id).toMatch(UUID);
      expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
    },
  );

  it('when the docs and the OpenAPI document are served, then they carry X-Request-Id too', async () => {
    expect((await t.request('GET', '/openapi.json')).headers['x-request-id']).toMatch(UUID);
    expect((await t.request('GET', '/docs/')).headers['x-request-id']).toMatch(UUID);
  });
});
