import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { practitionerBody } from '../helpers/fixtures.js';
import { OPERATOR_TOKEN, TestApp, type Reply } from '../helpers/test-app.js';

const CARRIERS = '/api/external/carriers';
const PRACTITIONER = '/api/external/practitioner';

function expectError(res: Reply, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    success: false,
    error: { message: expect.any(String), code, request_id: res.headers['x-request-id'] },
  });
}

// Content negotiation happens before any data is touched: one dialect is enough.
describe('content negotiation', () => {
  let t: TestApp;
  let apiKey: string;
  let clinicId: string;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    ({ apiKey, clinicId } = await t.createClinic());
  });
  afterAll(async () => t.close());

  const get = (headers: Record<string, string>) => t.request('GET', CARRIERS, { headers: { 'x-api-key': apiKey, ...headers } });
  const post = (headers: Record<string, string>, payload?: string) =>
    t.request('POST', PRACTITIONER, {
      headers: { 'x-api-key': apiKey, ...headers },
      ...(payload !== undefined ? { payload } : {}),
    });

  it('when a GET carries no Accept and no Content-Type, then it is served', async () => {
    const res = await get({});
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('when a GET carries the spec\u2019s three headers (Content-Type included, no body), then it is served', async () => {
    const res = await get({ accept: 'application/json', 'content-type': 'application/json' });
    expect(res.status).toBe(200);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    '*/*',
    'application/*',
    'text/html, application/json;q=0.5',
    'text/html;q=0.9, */*;q=0.1',
  ])('when Accept is %j, then the request is served', async (accept) => {
    expect((await get({ accept })).status).toBe(200);
  });

  it.each(['text/html', 'application/xml', 'application/json;q=0', 'text/*', 'image/png, text/plain'])(
    'when Accept is %j, then 406 NOT_ACCEPTABLE in JSON',
    async (accept) => {
      const res = await get({ accept });
      expectError(res, 406, 'NOT_ACCEPTABLE');
      expect(res.body.error.message).toMatch(/application\/json/);
    },
  );

  it('when a body is sent as application/json with a charset, then it is accepted', async () => {
    const res = await post({ 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(practitionerBody(clinicId)));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form encoding', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a look-alike JSON type', 'application/jsonp'],
    ['XML', 'application/xml'],
  ])('when a body is sent as %s, then 415 UNSUPPORTED_MEDIA_TYPE naming the type', async (_name, type) => {
    const res = await post({ 'content-type': type }, JSON.stringify(practitionerBody(clinicId)));
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.error.message).toContain(type.split(';')[0]);
  });

  it('when a body is sent without any Content-Type, then 415', async () => {
    expectError(await post({}, JSON.stringify(practitionerBody(clinicId))), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('when a POST has neither body nor Content-Type on a route that needs a body, then it is a 400 about the body, not a 415', async () => {
    const res = await post({});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual({ body: expect.any(String) });
  });

  it('when a POST has Content-Type json and an empty body on a route that needs a body, then it is the same 400', async () => {
    const res = await post({ 'content-type': 'application/json' }, '');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ body: expect.any(String) });
  });

  it('when a bodyless operator call carries Content-Type json and no body, then it is served (empty body is no body)', async () => {
    const { apiKeyId } = await t.createClinic();
    const res = await t.request('DELETE', `/api/admin/api-keys/${apiKeyId}`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('when a POST whose body is optional carries Content-Type json and an empty body, then it is served as if no body were sent', async () => {
    const { clinicId: other } = await t.createClinic();
    const res = await t.request('POST', `/api/admin/clinics/${other}/api-keys`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
      payload: '',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.api_key).toMatch(/^dev_/);
  });

  it('when a bodyless operator call carries no Content-Type, then it is served', async () => {
    const { apiKeyId } = await t.createClinic();
    const res = await t.request('DELETE', `/api/admin/api-keys/${apiKeyId}`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(res.status).toBe(200);
  });

  it('when a non-API page is asked for with Accept text/html, then it is served (negotiation is for /api only)', async () => {
    const res = await t.request('GET', '/docs/', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });
});
