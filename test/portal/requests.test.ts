import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portalSignIn } from '../helpers/portal.js';
import { TestApp, type Reply, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

const UNKNOWN_ORDER = '/api/external/medication-order/00000000-0000-4000-8000-000000000000';

describe.each(DIALECTS)('the portal’s request log on %s', (dialect) => {
  const clock = fakeClock(Date.parse('2031-05-06T09:00:00.000Z'));
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;
  let viewer: Record<string, string>;
  let otherViewer: Record<string, string>;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    clinic = await t.createClinic();
    other = await t.createClinic();
    viewer = (await portalSignIn(t, clinic.clinicId, 'viewer')).headers;
    otherViewer = (await portalSignIn(t, other.clinicId, 'viewer')).headers;
  });
  afterAll(async () => t.close());

  /** The portal's search, once what is buffered has been written. */
  const search = async (query: string, headers = viewer): Promise<Reply> => {
    await t.ctx.requestLog.flush();
    return t.request('GET', `/api/portal/requests${query}`, { headers });
  };

  it('when a partner has the request id of a failed request, then one search finds it, with its error', async () => {
    await t.partner(clinic.apiKey).get('/api/external/carriers');
    const failed = await t.partner(clinic.apiKey).get(UNKNOWN_ORDER);
    expect(failed.status).toBe(404);
    const requestId = failed.body.error.request_id as string;

    const res = await search(`?request_id=${requestId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      items: [
        expect.objectContaining({
          request_id: requestId,
          method: 'GET',
          route: '/api/external/medication-order/:id',
          status: 404,
          api_key_id: clinic.apiKeyId,
          error_code: 'NOT_FOUND',
        }),
      ],
      next_cursor: null,
    });
  });

  it('when another clinic’s user searches by this clinic’s request id or lists its log, then it finds nothing of this clinic', async () => {
    const mine = await t.partner(clinic.apiKey).get(UNKNOWN_ORDER);
    await t.partner(other.apiKey).get('/api/external/medications');
    expect((await search(`?request_id=${mine.body.error.request_id}`, otherViewer)).body.data.items).toEqual([]);
    const theirs = (await search('?limit=100', otherViewer)).body.data.items as { route: string; api_key_id: string }[];
    expect(theirs.map((item) => item.route)).toEqual(['/api/external/medications']);
    expect(theirs.every((item) => item.api_key_id === other.apiKeyId)).toBe(true);
  });

  it('when the log is filtered by status, method, route, since and until and read a page at a time, then it answers as the API does', async () => {
    clock.advance(60_000);
    const since = clock.clock().toISOString();
    const partner = t.partner(clinic.apiKey);
    await partner.get('/api/external/carriers');
    clock.advance(1_000);
    await partner.post('/api/external/refill-request', {});
    clock.advance(1_000);
    const until = clock.clock().toISOString();
    await partner.get(UNKNOWN_ORDER);

    const entries = async (query: string) =>
      ((await search(`?since=${since}${query}`)).body.data.items as { method: string; status: number }[]).map(
        (item) => `${item.method} ${item.status}`,
      );
    expect(await entries('')).toEqual(['GET 404', 'POST 400', 'GET 200']);
    expect(await entries('&status=4xx')).toEqual(['GET 404', 'POST 400']);
    expect(await entries('&method=GET')).toEqual(['GET 404', 'GET 200']);
    expect(await entries(`&until=${until}`)).toEqual(['POST 400', 'GET 200']);
    expect(await entries('&route=/api/external/carriers')).toEqual(['GET 200']);
    const first = await search(`?since=${since}&limit=2`);
    expect(first.body.data.items).toHaveLength(2);
    const second = await search(`?since=${since}&limit=2&cursor=${first.body.data.next_cursor}`);
    expect(second.body.data).toEqual({ items: [expect.objectContaining({ method: 'GET', status: 200 })], next_cursor: null });
  });

  it('when a filter is not one the log takes, then 400 names it', async () => {
    for (const [query, field] of [
      ['?status=abc', 'status'],
      ['?method=FETCH', 'method'],
      ['?since=yesterday', 'since'],
      ['?request_id=abc', 'request_id'],
      ['?limit=0', 'limit'],
    ]) {
      const res = await search(query ?? '');
      expect(res.status, query).toBe(400);
      expect(res.body.error.details, query).toHaveProperty([field ?? '']);
    }
  });

  it('when nobody is signed in, then the log is not shown (401)', async () => {
    const res = await t.request('GET', '/api/portal/requests');
    expect(res.status).toBe(401);
  });
});
