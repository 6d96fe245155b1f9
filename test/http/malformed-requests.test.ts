import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { practitionerBody } from '../helpers/fixtures.js';
import { OPERATOR_TOKEN, TestApp } from '../helpers/test-app.js';

const PRACTITIONER = '/api/external/practitioner';
const PATIENT = '/api/external/patient';
const CARRIERS = '/api/external/carriers';
const SOME_UUID = '3b241101-e2bb-4255-8caf-4136c566a962';
const MIB = 1024 * 1024;

type Auth = 'partner' | 'admin' | 'none';

interface Case {
  name: string;
  method: string;
  url: string;
  /** Who calls: the partner's key (default), the operator's token, or nobody. */
  auth?: Auth;
  /** Headers on top of the caller's; `content-type: application/json` is added when there is a payload unless set here. */
  headers?: Record<string, string>;
  payload?: string | Buffer | ((clinicId: string) => string);
  status: number;
  code: string;
  /** Fields that must be named in error.details (value: a substring of the message, or true for any). */
  details?: Record<string, string | true>;
  /** The Allow header of a 405. */
  allow?: string[];
}

const json = (value: unknown) => JSON.stringify(value);

/**
 * Every row is a request a careless or hostile client could send. Each must get the spec's error
 * envelope with a 4xx: never a 500, never Fastify's own `{statusCode, error, message}` shape.
 */
const CASES: Case[] = [
  // JSON syntax
  {
    name: 'truncated JSON',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{"first_name": "Ada"',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'trailing garbage after the object',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{} x',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'single-quoted JSON',
    method: 'POST',
    url: PRACTITIONER,
    payload: "{'first_name': 'Ada'}",
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'a bare word',
    method: 'POST',
    url: PRACTITIONER,
    payload: 'hello',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'a trailing comma',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{"first_name": "Ada",}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'a comment',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{/* hi */}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'NaN',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{"quantity": NaN}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'invalid UTF-8 bytes',
    method: 'POST',
    url: PRACTITIONER,
    payload: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be valid UTF-8' },
  },
  {
    name: 'malformed JSON with a charset parameter',
    method: 'POST',
    url: PRACTITIONER,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    payload: '{',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },
  {
    name: 'malformed JSON on an operator route',
    method: 'POST',
    url: '/api/admin/clinics',
    auth: 'admin',
    payload: '{"name":',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'JSON' },
  },

  // Prototype poisoning
  {
    name: 'a __proto__ key',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{"__proto__": {"isAdmin": true}}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: '__proto__' },
  },
  {
    name: 'a constructor.prototype key',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{"constructor": {"prototype": {"isAdmin": true}}}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'constructor' },
  },
  {
    name: 'a nested __proto__ key',
    method: 'POST',
    url: PATIENT,
    payload: '{"addresses": [{"__proto__": {"x": 1}}]}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: '__proto__' },
  },
  {
    name: 'a unicode-escaped __proto__ key',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{"\\u005f_proto__": {"isAdmin": true}}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: true },
  },
  {
    name: 'a __proto__ key on an operator route',
    method: 'POST',
    url: '/api/admin/clinics',
    auth: 'admin',
    payload: '{"name": "X", "__proto__": {"a": 1}}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: '__proto__' },
  },

  // Bodies that are JSON but not an object
  {
    name: 'an empty array',
    method: 'POST',
    url: PRACTITIONER,
    payload: '[]',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be an object' },
  },
  {
    name: 'an array of objects',
    method: 'POST',
    url: PRACTITIONER,
    payload: (c) => json([practitionerBody(c)]),
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be an object' },
  },
  {
    name: 'a JSON string',
    method: 'POST',
    url: PRACTITIONER,
    payload: '"hello"',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be an object' },
  },
  {
    name: 'a JSON number',
    method: 'POST',
    url: PRACTITIONER,
    payload: '42',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be an object' },
  },
  {
    name: 'a JSON boolean',
    method: 'POST',
    url: PATIENT,
    payload: 'true',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be an object' },
  },
  {
    name: 'JSON null',
    method: 'POST',
    url: PATIENT,
    payload: 'null',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be an object' },
  },
  {
    name: 'an array on an operator route',
    method: 'POST',
    url: '/api/admin/clinics',
    auth: 'admin',
    payload: '[{"name": "X"}]',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: 'must be an object' },
  },

  // No body where one is needed
  {
    name: 'an empty body with Content-Type json',
    method: 'POST',
    url: PRACTITIONER,
    payload: '',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: true },
  },
  {
    name: 'a whitespace-only body',
    method: 'POST',
    url: PRACTITIONER,
    payload: '  \n ',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: true },
  },
  {
    name: 'no body and no Content-Type',
    method: 'POST',
    url: PATIENT,
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { body: true },
  },

  // Content types
  {
    name: 'a JSON body sent as text/plain',
    method: 'POST',
    url: PRACTITIONER,
    headers: { 'content-type': 'text/plain' },
    payload: (c) => json(practitionerBody(c)),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a JSON body without Content-Type',
    method: 'POST',
    url: PRACTITIONER,
    headers: { 'content-type': '' },
    payload: (c) => json(practitionerBody(c)),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a form-encoded body',
    method: 'POST',
    url: PATIENT,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'first_name=Grace',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a form-encoded body to the operator',
    method: 'POST',
    url: '/api/admin/clinics',
    auth: 'admin',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'name=X',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a text/plain body to a route outside /api',
    method: 'POST',
    url: '/healthz',
    auth: 'none',
    headers: { 'content-type': 'text/plain' },
    payload: 'hi',
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    allow: ['GET', 'HEAD'],
  },

  // Size
  {
    name: 'a body of 1 MiB + 1 byte',
    method: 'POST',
    url: PRACTITIONER,
    payload: `{"notes":"${'a'.repeat(MIB - 11)}"}`,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a 2 MiB body to the operator',
    method: 'POST',
    url: '/api/admin/clinics',
    auth: 'admin',
    payload: `{"name":"${'a'.repeat(2 * MIB)}"}`,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },

  // Accept
  {
    name: 'Accept: text/html',
    method: 'GET',
    url: CARRIERS,
    headers: { accept: 'text/html' },
    status: 406,
    code: 'NOT_ACCEPTABLE',
  },
  {
    name: 'Accept: application/json;q=0',
    method: 'POST',
    url: PRACTITIONER,
    headers: { accept: 'application/json;q=0' },
    payload: (c) => json(practitionerBody(c)),
    status: 406,
    code: 'NOT_ACCEPTABLE',
  },

  // Routing
  { name: 'an unknown partner route', method: 'GET', url: '/api/external/no-such-route', status: 404, code: 'NOT_FOUND' },
  { name: 'the partner prefix itself', method: 'GET', url: '/api/external', status: 404, code: 'NOT_FOUND' },
  { name: 'an unknown route outside the API', method: 'GET', url: '/wp-login.php', auth: 'none', status: 404, code: 'NOT_FOUND' },
  {
    name: 'an unknown operator route',
    method: 'GET',
    url: '/api/admin/no-such-route',
    auth: 'admin',
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    name: 'PUT on the practitioner route',
    method: 'PUT',
    url: PRACTITIONER,
    payload: '{}',
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    allow: ['POST'],
  },
  { name: 'GET on the patient route', method: 'GET', url: PATIENT, status: 405, code: 'METHOD_NOT_ALLOWED', allow: ['POST'] },
  {
    name: 'DELETE on the carriers route',
    method: 'DELETE',
    url: CARRIERS,
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    allow: ['GET', 'HEAD'],
  },
  {
    name: 'POST on the carrier services route',
    method: 'POST',
    url: `/api/external/carriers/ups/services?patientId=${SOME_UUID}`,
    payload: '{}',
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    allow: ['GET', 'HEAD'],
  },
  {
    name: 'PATCH on the OpenAPI document',
    method: 'PATCH',
    url: '/openapi.json',
    auth: 'none',
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    allow: ['GET', 'HEAD'],
  },
  { name: 'a broken percent-escape in the path', method: 'GET', url: '/api/external/%', status: 400, code: 'VALIDATION_ERROR' },
  {
    name: 'a truncated UTF-8 escape in the path',
    method: 'GET',
    url: '/api/external/carriers/%E0%A4%A/services',
    status: 400,
    code: 'VALIDATION_ERROR',
  },
  {
    name: 'a path parameter longer than 100 characters',
    method: 'GET',
    url: `/api/external/carriers/${'x'.repeat(150)}/services?patientId=${SOME_UUID}`,
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { path: true },
  },
  {
    name: 'a broken percent-escape outside the API',
    method: 'GET',
    url: '/docs/%zz',
    auth: 'none',
    status: 400,
    code: 'VALIDATION_ERROR',
  },

  // Query strings
  {
    name: 'carrier services without patientId',
    method: 'GET',
    url: '/api/external/carriers/ups/services',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { patientId: true },
  },
  {
    name: 'carrier services with a patientId that is not a UUID',
    method: 'GET',
    url: '/api/external/carriers/ups/services?patientId=42',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { patientId: 'UUID' },
  },
  {
    name: 'carrier services with patientId given twice',
    method: 'GET',
    url: `/api/external/carriers/ups/services?patientId=${SOME_UUID}&patientId=${SOME_UUID}`,
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { patientId: true },
  },
  {
    name: 'carrier services with an empty patientId',
    method: 'GET',
    url: '/api/external/carriers/ups/services?patientId=',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { patientId: true },
  },

  // Schema validation
  {
    name: 'an empty object',
    method: 'POST',
    url: PRACTITIONER,
    payload: '{}',
    status: 400,
    code: 'VALIDATION_ERROR',
    details: {
      first_name: 'required',
      last_name: 'required',
      email: 'required',
      npi: 'required',
      is_veterinarian: 'required',
      assigned_clinic: 'required',
    },
  },
  {
    name: 'a number where a string is expected',
    method: 'POST',
    url: PRACTITIONER,
    payload: (c) => json(practitionerBody(c, { first_name: 12 })),
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { first_name: true },
  },
  {
    name: 'the string "false" for a boolean (no coercion of bodies)',
    method: 'POST',
    url: PRACTITIONER,
    payload: (c) => json(practitionerBody(c, { is_veterinarian: 'false' })),
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { is_veterinarian: 'boolean' },
  },
  {
    name: 'an outdated field name',
    method: 'POST',
    url: PRACTITIONER,
    payload: (c) => json({ ...practitionerBody(c), npi_number: '1234567893' }),
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { npi_number: 'did you mean npi?' },
  },
  {
    name: 'an unknown field',
    method: 'POST',
    url: PRACTITIONER,
    payload: (c) => json({ ...practitionerBody(c), favourite_colour: 'blue' }),
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { favourite_colour: 'is not a known field' },
  },
  {
    name: 'a clinic id that is not a UUID',
    method: 'POST',
    url: PRACTITIONER,
    payload: (c) => json(practitionerBody(c, { assigned_clinic: 'clinic-1' })),
    status: 400,
    code: 'VALIDATION_ERROR',
    details: { assigned_clinic: 'UUID' },
  },

  // Credentials
  { name: 'no API key', method: 'POST', url: PRACTITIONER, auth: 'none', payload: '{', status: 401, code: 'UNAUTHORIZED' },
  {
    name: 'no operator token',
    method: 'POST',
    url: '/api/admin/clinics',
    auth: 'none',
    payload: '{"name": "X"}',
    status: 401,
    code: 'UNAUTHORIZED',
  },
];

// Parsing, routing and validation are dialect-independent: one dialect is enough.
describe('malformed requests', () => {
  let t: TestApp;
  let apiKey: string;
  let clinicId: string;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    ({ apiKey, clinicId } = await t.createClinic());
  });
  afterAll(async () => t.close());

  it.each(CASES.map((c) => [c.name, c] as const))(
    'when the request has %s, then the error envelope says so with a 4xx',
    async (_name, c) => {
      const payload = typeof c.payload === 'function' ? c.payload(clinicId) : c.payload;
      const auth = c.auth ?? 'partner';
      const headers: Record<string, string> = {
        ...(auth === 'partner' ? { 'x-api-key': apiKey } : {}),
        ...(auth === 'admin' ? { authorization: `Bearer ${OPERATOR_TOKEN}` } : {}),
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...c.headers,
      };
      if (headers['content-type'] === '') delete headers['content-type'];

      const response = await t.app.inject({
        method: c.method as 'GET',
        url: c.url,
        headers,
        ...(payload !== undefined ? { payload } : {}),
      });
      const body = response.json();

      expect(response.statusCode, response.body).toBe(c.status);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(body).sort()).toEqual(['error', 'success']);
      expect(body.success).toBe(false);
      expect(body.error.code).toBe(c.code);
      expect(typeof body.error.message).toBe('string');
      expect(body.error.message.length).toBeGreaterThan(0);
      expect(body.error.request_id).toBe(response.headers['x-request-id']);
      for (const key of Object.keys(body.error)) expect(['message', 'code', 'details', 'request_id']).toContain(key);
      if (c.details) {
        for (const [field, expected] of Object.entries(c.details)) {
          expect(body.error.details?.[field], `details.${field} in ${JSON.stringify(body.error.details)}`).toBeTypeOf('string');
          if (expected !== true) expect(body.error.details[field]).toContain(expected);
        }
      }
      if (c.allow) expect(response.headers.allow).toBe(c.allow.join(', '));
    },
  );

  it('when a valid request follows all of these, then the service is still serving', async () => {
    const res = await t.partner(apiKey).post(PRACTITIONER, practitionerBody(clinicId));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('when a body is just under the limit, then it is parsed and validated instead of refused for its size', async () => {
    const res = await t.partner(apiKey).post(PRACTITIONER, { ...practitionerBody(clinicId), notes: 'a'.repeat(MIB - 400) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ notes: 'is not a known field' });
  });

  it('when a body is deeply nested, then it is a 400, not a stack overflow', async () => {
    const depth = 100_000;
    const res = await t.request('POST', PRACTITIONER, {
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: `{"first_name":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

/** Sends raw bytes to a listening server and returns everything it answers before closing. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
  });
}

function parseRawResponse(raw: string): { status: number; headers: Record<string, string>; body: any } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

// Requests that are not valid HTTP never reach Fastify's router: only a real socket shows them.
describe('unparsable HTTP over a real socket', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.close());

  it.each([
    ['a garbled request line', 'THIS IS NOT HTTP\r\n\r\n', 400],
    ['a header line without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n', 400],
    ['headers larger than 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('when a client sends %s, then it gets the error envelope and the connection closes', async (_name, request, status) => {
    const response = parseRawResponse(await rawExchange(port, request));
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      success: false,
      error: { message: expect.any(String), code: 'VALIDATION_ERROR', request_id: response.headers['x-request-id'] },
    });
  });
});
