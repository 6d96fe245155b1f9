import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/config.js';
import { MAX_JSON_DEPTH, MAX_JSON_ENTRIES } from '../../src/http/json-shape.js';
import { validatorCompiler } from '../../src/contracts/validation.js';
import { itemBody, orderBody } from '../helpers/factories.js';
import { patientBody } from '../helpers/fixtures.js';
import { OPERATOR_TOKEN, TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import {
  BASE_REQUESTS,
  createWorstCaseFixture,
  expectBoundedAnswer,
  inputRoutesOf,
  worstCasesOfRoute,
  type InputRoute,
  type SendRaw,
  type WorstCaseFixture,
} from '../helpers/worst-case-routes.js';

/**
 * Bounded work for any input (issue 9, item 1): every partner, operator and portal route that takes a body
 * or a query string gets its generated worst cases (test/helpers/worst-cases.ts: bodies just under
 * the 1 MiB limit, query strings as long as the headers allow), and every answer is a 4xx (never a
 * 5xx; only unknown query parameters, which some routes ignore, may succeed) under 16 KB, in the
 * envelope, naming at most 20 problems and not repeating the long input (the unbounded validation
 * answered 142 MB for the first case). Time is not asserted here: a loaded CI machine would make a
 * stopwatch flaky; the fault suite (test/faults/worst-cases.test.ts) times every case against a
 * real server.
 */

const sendThrough =
  (t: TestApp): SendRaw =>
  async ({ method, url, headers, payload }) => {
    const response = await t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
    return { status: response.statusCode, body: response.body, headers: response.headers };
  };

/** Arrays nested `depth` deep, as a value: inside a body's object, one level deeper. */
const nestedArrays = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;

/** The fixture makes accounts, keys, orders and a portal session: on a loaded machine, more than a hook's 30 s. */
const FIXTURE_TIMEOUT_MS = 120_000;

/** Fastify's `/carriers/:carrierId/services` is OpenAPI's `/carriers/{carrierId}/services`. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('worst cases: every route is covered', () => {
  let t: TestApp;
  let routes: InputRoute[];
  let fixture: WorstCaseFixture;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    routes = inputRoutesOf(t.app.swagger() as any);
    fixture = await createWorstCaseFixture(sendThrough(t));
  }, FIXTURE_TIMEOUT_MS);
  afterAll(async () => t.close());

  it('when a partner, operator or portal route takes a body or a query string, then it has a base request, and no base request is left over', () => {
    expect(routes.length).toBeGreaterThan(20);
    expect(Object.keys(BASE_REQUESTS).sort()).toEqual(routes.map((route) => route.key).sort());
  });

  it('when each portal base request is sent as it is with the fixture\u2019s session, then the portal\u2019s guard lets it through', async () => {
    // A session refused (401), an origin refused (403) or an address locked (429) would answer every
    // worst case of the portal with a small 4xx before its body is read: the cases would test nothing.
    const portalRoutes = routes.filter((route) => route.area === 'portal' && route.key !== 'POST /api/portal/session');
    expect(portalRoutes.length).toBeGreaterThan(10);
    for (const route of portalRoutes) {
      const base = BASE_REQUESTS[route.key]!(fixture);
      const answer = await sendThrough(t)({
        method: base.method,
        url: base.url,
        headers: { ...fixture.portalHeaders, 'content-type': 'application/json' },
        ...(base.body === undefined ? {} : { payload: JSON.stringify(base.body) }),
      });
      expect([401, 403, 429], `${route.key}: ${answer.body}`).not.toContain(answer.status);
    }
  });

  it('when each base request is checked against its route\u2019s own validators, then it is valid', () => {
    const checked = new Set<string>();
    for (const route of t.app.registeredRoutes()) {
      const key = `${route.method} ${toOpenApiPath(route.url)}`;
      const base = BASE_REQUESTS[key]?.(fixture);
      if (!base || !route.schema) continue;
      checked.add(key);
      const query = Object.fromEntries(new URLSearchParams(base.url.split('?')[1] ?? ''));
      for (const [httpPart, data] of [
        ['body', base.body],
        ['querystring', query],
      ] as const) {
        const schema = route.schema[httpPart];
        if (!schema) continue;
        const result = validatorCompiler({ schema, method: route.method, url: route.url, httpPart })(structuredClone(data)) as {
          error?: Error;
        };
        expect(result.error?.message, `${key} ${httpPart}`).toBeUndefined();
      }
    }
    expect([...checked].sort()).toEqual(Object.keys(BASE_REQUESTS).sort());
  });
});

describe.each(DIALECTS)('worst-case requests on %s', (dialect) => {
  let t: TestApp;
  let send: SendRaw;
  let routes: InputRoute[];
  let fixture: WorstCaseFixture;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    send = sendThrough(t);
    routes = inputRoutesOf(t.app.swagger() as any);
    fixture = await createWorstCaseFixture(send);
  }, FIXTURE_TIMEOUT_MS);
  afterAll(async () => t.close());

  it.each(Object.keys(BASE_REQUESTS))(
    'when %s gets each of its worst cases, then no answer is a 5xx, and each is under 16 KB, bounded and without the input',
    async (key) => {
      const route = routes.find((candidate) => candidate.key === key);
      expect(route, key).toBeDefined();
      let sent = 0;
      for (const worstCase of worstCasesOfRoute(route!, fixture)) {
        if (worstCase.payload !== undefined) expect(Buffer.byteLength(worstCase.payload)).toBeLessThan(BODY_LIMIT_BYTES);
        expectBoundedAnswer(worstCase, await send(worstCase));
        sent += 1;
      }
      expect(sent).toBeGreaterThan(0);
    },
  );

  const sendJson = async (url: string, body: unknown) => {
    const answer = await send({
      method: 'POST',
      url,
      headers: { 'x-api-key': fixture.clinic.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    return { status: answer.status, body: answer.body };
  };

  it('when a body holds more unknown fields than are listed, then one problem says how many, without naming them', async () => {
    const extra = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`unknown_${i}`, i]));
    const answer = await sendJson('/api/external/patient', { ...patientBody(fixture.clinic.clinicId), ...extra });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.details).toEqual({ body: 'has 25 fields that are not known (at most 20 are listed)' });
  });

  it('when a body has more problems than details holds, then 20 are named and the message says how many more', async () => {
    const items = Array.from({ length: 20 }, () => itemBody({ quantity: -1 }));
    const body = orderBody(fixture, { medication_requests: items, carrier_id: undefined, service_id: 7 });
    const answer = await sendJson('/api/external/medication-order', body);
    const { error } = JSON.parse(answer.body);
    expect(answer.status).toBe(400);
    expect(Object.keys(error.details)).toHaveLength(20);
    expect(error.message).toMatch(/\(and [1-9]\d* more problems?\)$/);
  });

  it('when an unknown field name is long, then the answer repeats only its first 64 characters', async () => {
    const name = `x${'y'.repeat(500)}`;
    const answer = await sendJson('/api/external/patient', { ...patientBody(fixture.clinic.clinicId), [name]: 1 });
    const { error } = JSON.parse(answer.body);
    expect(Object.keys(error.details)).toEqual([`${name.slice(0, 64)}…`]);
    expect(answer.body).not.toContain(name.slice(0, 65));
  });

  it('when an unknown path is as long as the headers allow, then the 404 repeats only its beginning', async () => {
    const path = `/api/external/${'p'.repeat(15_000)}`;
    const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': fixture.clinic.apiKey } });
    expect(response.statusCode).toBe(404);
    expect(Buffer.byteLength(response.body)).toBeLessThan(1024);
  });

  it('when a body nests deeper than the parser takes, then 400 says so for the whole body', async () => {
    const answer = await sendJson(
      '/api/external/patient',
      patientBody(fixture.clinic.clinicId, { first_name: nestedArrays(MAX_JSON_DEPTH) }),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.details).toEqual({
      body: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} deep`,
    });
  });

  it('when a body holds more entries than the parser takes, then 400 says so for the whole body', async () => {
    const items = Array.from({ length: MAX_JSON_ENTRIES }, () => ({}));
    const answer = await sendJson('/api/external/medication-order', orderBody(fixture, { medication_requests: items }));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.details).toEqual({
      body: `must hold at most ${MAX_JSON_ENTRIES} array items and object fields in all`,
    });
  });

  it('when an array holds as many items as the parser takes, then its own maximum refuses it before any item is checked', async () => {
    const items = Array.from({ length: MAX_JSON_ENTRIES - 100 }, () => ({}));
    const answer = await sendJson('/api/external/medication-order', orderBody(fixture, { medication_requests: items }));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.details).toEqual({ medication_requests: 'must have at most 20 items' });
  });

  it('when a record holds more entries than its maximum, then one problem says so before any entry is checked', async () => {
    const statePrices = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`S${i}`, 'not a price']));
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/carriers/fedex/services',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ id: 'fedex_bulk', name: 'Bulk', price: 10, state_prices: statePrices }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual({ state_prices: 'must have at most 60 entries' });
  });
});
