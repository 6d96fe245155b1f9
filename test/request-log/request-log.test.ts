import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { createPatient, createPractitioner } from '../helpers/factories.js';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type Reply, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { bearer, createClient, FULL, tokenFor } from '../oauth/support.js';
import { fakeClock } from '../webhooks/support.js';

/** The partner request log through the API (issue 22, item 3; docs/request-log.md). */
describe.each(DIALECTS)('the partner request log on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;
  let practitionerId: string;
  const clock = fakeClock(Date.parse('2031-03-01T09:00:00.000Z'));

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    clinic = await t.createClinic();
    other = await t.createClinic();
    practitionerId = await createPractitioner(t, clinic);
  });
  afterAll(async () => t.close());

  /** The clinic's log, once what is buffered has been written. */
  const search = async (query: string, key = clinic.apiKey): Promise<Reply> => {
    await t.ctx.requestLog.flush();
    return t.partner(key).get(`/api/external/requests${query}`);
  };
  const rowsOf = (requestId: string) =>
    t.ctx.db.selectFrom('request_log').selectAll().where('request_id', '=', requestId).execute();

  it('when a request fails validation, then its request id finds it in one search, with its code and a safe message', async () => {
    const failed = await t.partner(clinic.apiKey).post('/api/external/patient', {
      ...patientBody(clinic.clinicId, { practitioner_id: practitionerId, dob: 'not-a-date' }),
    });
    expect(failed.status).toBe(400);
    const requestId = failed.body.error.request_id as string;

    const found = await search(`?request_id=${requestId}`);
    expect(found.status).toBe(200);
    expect(found.body.data.items).toEqual([
      {
        // One entry per request: its id is the request's (migration 020).
        id: requestId,
        occurred_at: clock.clock().toISOString(),
        method: 'POST',
        route: '/api/external/patient',
        status: 400,
        duration_ms: expect.any(Number),
        request_id: requestId,
        api_key_id: clinic.apiKeyId,
        oauth_client_id: null,
        idempotency_key: null,
        error_code: 'VALIDATION_ERROR',
        error_message: 'Validation failed (invalid: dob)',
      },
    ]);
    expect(found.body.data.next_cursor).toBeNull();
  });

  it('when a request carries PHI in its body, path, query and headers, then its stored row holds none of it', async () => {
    const phi = [
      'Quentin',
      'Zabriskie',
      '1971-07-04',
      'quentin.z@example.com',
      'Marigold Lane',
      'Dr-Secret-Correlation',
    ] as const;
    const partner = t.partner(clinic.apiKey);
    const created = await partner.post(
      '/api/external/patient',
      patientBody(clinic.clinicId, {
        practitioner_id: practitionerId,
        first_name: phi[0],
        last_name: phi[1],
        dob: phi[2],
        contacts: [{ key: 'email', value: phi[3] }],
        addresses: [{ addressLine1: `9 ${phi[4]}`, city: 'Sacramento', state: 'CA', postalCode: '95814' }],
        // An unknown field whose very name is PHI: the message counts it, never names it.
        [`${phi[1]}_diagnosis`]: 'x',
      }),
    );
    expect(created.status).toBe(400);
    const patientId = await createPatient(t, clinic, {
      practitionerId,
      overrides: { first_name: phi[0], last_name: phi[1], dob: phi[2] },
    });
    const read = await t.request('GET', `/api/external/patient/${patientId}`, {
      headers: { 'x-api-key': clinic.apiKey, accept: 'application/json', 'x-request-id': phi[5] },
    });
    const priced = await partner.get(`/api/external/carriers/fedex/services?patientId=${patientId}`);
    expect([read.status, priced.status]).toEqual([200, 200]);
    await t.ctx.requestLog.flush();

    const rows = [
      ...(await rowsOf(created.headers['x-request-id'] as string)),
      ...(await rowsOf(read.headers['x-request-id'] as string)),
      ...(await rowsOf(priced.headers['x-request-id'] as string)),
    ];
    expect(rows.map((row) => row.route)).toEqual([
      '/api/external/patient',
      '/api/external/patient/:patientId',
      '/api/external/carriers/:carrierId/services',
    ]);
    expect(rows[0]?.error_message).toBe('Validation failed (1 unknown field)');
    const stored = JSON.stringify(rows);
    for (const value of [...phi, patientId, clinic.apiKey]) expect(stored).not.toContain(value);
  });

  it('when another clinic searches by this clinic’s request id, or lists its log, then it finds none of this clinic’s requests', async () => {
    const mine = await t.partner(clinic.apiKey).get('/api/external/carriers');
    const requestId = mine.headers['x-request-id'] as string;
    await t.partner(other.apiKey).get('/api/external/medications');

    expect((await search(`?request_id=${requestId}`, other.apiKey)).body.data.items).toEqual([]);
    const theirs = (await search('?limit=100', other.apiKey)).body.data.items as { request_id: string; route: string }[];
    expect(theirs.map((item) => item.route)).toEqual(['/api/external/medications']);
    expect((await search(`?request_id=${requestId}`)).body.data.items).toHaveLength(1);
  });

  it('when the log is filtered by status (exact or class), route (template, `{id}` too) and since, then only matching entries come, newest first', async () => {
    const partner = t.partner(clinic.apiKey);
    clock.advance(60_000);
    const since = clock.clock().toISOString();
    await partner.get('/api/external/carriers');
    clock.advance(1_000);
    await partner.get('/api/external/patient/00000000-0000-4000-8000-000000000000');
    clock.advance(1_000);
    await partner.get('/api/external/carriers/nope/services?patientId=00000000-0000-4000-8000-000000000000');
    clock.advance(1_000);
    await partner.get('/api/external/patient/not-a-uuid');

    const statuses = async (query: string) =>
      ((await search(query)).body.data.items as { status: number; route: string }[]).map(
        (item) => `${item.status} ${item.route}`,
      );
    expect(await statuses(`?since=${since}`)).toEqual([
      '400 /api/external/patient/:patientId',
      '404 /api/external/carriers/:carrierId/services',
      '404 /api/external/patient/:patientId',
      '200 /api/external/carriers',
    ]);
    expect(await statuses(`?since=${since}&status=4xx`)).toHaveLength(3);
    expect(await statuses(`?since=${since}&status=404`)).toEqual([
      '404 /api/external/carriers/:carrierId/services',
      '404 /api/external/patient/:patientId',
    ]);
    expect(await statuses(`?since=${since}&route=/api/external/patient/:patientId`)).toEqual([
      '400 /api/external/patient/:patientId',
      '404 /api/external/patient/:patientId',
    ]);
    expect(await statuses(`?since=${since}&route=${encodeURIComponent('/api/external/patient/{patientId}')}&status=404`)).toEqual(
      ['404 /api/external/patient/:patientId'],
    );
    expect(await statuses(`?since=${encodeURIComponent(clock.clock().toISOString())}`)).toEqual([
      '400 /api/external/patient/:patientId',
    ]);
  });

  it('when the log is filtered by method and until, then only the requests of that method, before that time, come', async () => {
    const partner = t.partner(clinic.apiKey);
    clock.advance(60_000);
    const since = clock.clock().toISOString();
    await partner.get('/api/external/carriers');
    clock.advance(1_000);
    await partner.post('/api/external/refill-request', {});
    clock.advance(1_000);
    const until = clock.clock().toISOString();
    await partner.get('/api/external/medications');

    const entries = async (query: string) =>
      ((await search(`?since=${since}${query}`)).body.data.items as { method: string; route: string }[]).map(
        (item) => `${item.method} ${item.route}`,
      );
    expect(await entries('&method=POST')).toEqual(['POST /api/external/refill-request']);
    expect(await entries('&method=GET')).toEqual(['GET /api/external/medications', 'GET /api/external/carriers']);
    expect(await entries(`&until=${until}`)).toEqual(['POST /api/external/refill-request', 'GET /api/external/carriers']);
    expect(await entries(`&until=${until}&method=GET`)).toEqual(['GET /api/external/carriers']);
    expect((await search('?method=get')).body.error.details).toHaveProperty('method');
    expect((await search('?until=tomorrow')).body.error.details).toHaveProperty('until');
  });

  it('when the log is read a page at a time, then the pages follow one another, newest first, without a repeat or a gap', async () => {
    clock.advance(60_000);
    const since = clock.clock().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await t.partner(clinic.apiKey).get('/api/external/carriers')).headers['x-request-id'] as string);
      clock.advance(10);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Reply = await search(`?since=${since}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body.data.items as { request_id: string }[]).map((item) => item.request_id));
      cursor = page.body.data.next_cursor as string | null;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it('when the log is read successfully, then that read is not logged; a refused read is', async () => {
    const ok = await search('?limit=1');
    const refused = await search('?status=abc');
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual({ status: 'must be a status such as 404, or a class such as 4xx' });
    await t.ctx.requestLog.flush();
    expect(await rowsOf(ok.headers['x-request-id'] as string)).toEqual([]);
    expect((await rowsOf(refused.headers['x-request-id'] as string)).map((row) => row.error_message)).toEqual([
      'Validation failed (invalid: status)',
    ]);
  });

  it('when a filter is not what the API takes, then the answer is a 400 naming it', async () => {
    expect((await search('?since=yesterday')).body.error.details).toHaveProperty('since');
    expect((await search('?request_id=abc')).body.error.details).toHaveProperty('request_id');
    expect((await search('?cursor=abc')).body.error.details).toHaveProperty('cursor');
    expect((await search('?q=1')).body.error.details).toHaveProperty(['q']);
  });

  it('when a request is refused before its key is accepted, then no clinic’s log holds it', async () => {
    const refused = await t.request('GET', '/api/external/carriers', { headers: { 'x-api-key': 'dev_not-a-key-at-all' } });
    expect(refused.status).toBe(401);
    await t.ctx.requestLog.flush();
    expect(await rowsOf(refused.headers['x-request-id'] as string)).toEqual([]);
  });

  it('when a key restricted to orders reads the log, then 403 names webhooks:read (and is logged); a key with webhooks:read reads it', async () => {
    const ordersOnly = (await issueApiKey(t.ctx, clinic.clinicId, null, undefined, { scopes: ['orders:read'] })).api_key;
    const webhooksRead = (await issueApiKey(t.ctx, clinic.clinicId, null, undefined, { scopes: ['webhooks:read'] })).api_key;
    const refused = await t.partner(ordersOnly).get('/api/external/requests');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Forbidden: this API key lacks the scope webhooks:read');
    const found = await search(`?request_id=${refused.body.error.request_id as string}`, webhooksRead);
    expect(found.status).toBe(200);
    expect(found.body.data.items[0]).toMatchObject({
      status: 403,
      error_code: 'FORBIDDEN',
      error_message: 'Forbidden: this API key lacks the scope webhooks:read',
    });
  });

  it('when a request comes with an OAuth access token, then its entry names the OAuth client and no key (the token is never kept)', async () => {
    const client = await createClient(t, clinic.clinicId, { scopes: FULL });
    const token = await tokenFor(t, client);
    const answered = await bearer(t, token).get('/api/external/carriers');
    expect(answered.status).toBe(200);
    const found = await search(`?request_id=${answered.headers['x-request-id'] as string}`);
    expect(found.body.data.items[0]).toMatchObject({ oauth_client_id: client.clientId, api_key_id: null });
    await t.ctx.requestLog.flush();
    expect(JSON.stringify(await rowsOf(answered.headers['x-request-id'] as string))).not.toContain(token);
  });

  it('when a POST sends an Idempotency-Key, then its entry keeps the key', async () => {
    const sent = await t.request('POST', '/api/external/practitioner', {
      headers: {
        'x-api-key': clinic.apiKey,
        accept: 'application/json',
        'content-type': 'application/json',
        'idempotency-key': 'practitioner-create-0001',
      },
      body: {},
    });
    expect(sent.status).toBe(400);
    const found = await search(`?request_id=${sent.body.error.request_id as string}`);
    expect(found.body.data.items[0].idempotency_key).toBe('practitioner-create-0001');
  });
});
