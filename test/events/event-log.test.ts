import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { purgeEventLog } from '../../src/events/event-log-purge.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { emitEvent, fakeClock } from '../webhooks/support.js';

describe.each(DIALECTS)('the event log, GET /api/external/events (issue 31, item 7) on %s', (dialect) => {
  let t: TestApp;
  const clock = fakeClock(Date.parse('2031-03-01T09:00:00.000Z'));
  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
  });
  afterAll(async () => t.close());

  const readNow = (clinic: TestClinic, query = '') => t.partner(clinic.apiKey).get(`/api/external/events${query}`);
  /** Reads once the events made so far have settled (EVENT_LOG_SETTLE_MS later). */
  const read = (clinic: TestClinic, query = '') => {
    clock.advance(t.ctx.config.eventLogSettleMs);
    return readNow(clinic, query);
  };
  const idsOf = (body: { data: { items: { id: string }[] } }) => body.data.items.map((event) => event.id);
  /** Emits events a millisecond apart, so that their order is their times'. */
  async function emit(clinic: TestClinic, types: Parameters<typeof emitEvent>[2][]): Promise<string[]> {
    const ids: string[] = [];
    for (const type of types) {
      clock.advance(1);
      ids.push(await emitEvent(t.ctx, clinic.clinicId, type));
    }
    return ids;
  }

  it('when a partner pages through its events, then they come oldest first, exactly as webhook bodies, and next_cursor polls on forever', async () => {
    const clinic = await t.createClinic();
    const other = await t.createClinic();
    await emit(other, ['order.created']);
    const ids = await emit(clinic, ['order.created', 'order.on_hold', 'order.resumed', 'order.delivered', 'order.created']);
    const first = await read(clinic, '?limit=2');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.items.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    const row = await t.ctx.db.selectFrom('outbox_events').selectAll().where('id', '=', ids[0]!).executeTakeFirstOrThrow();
    expect(first.body.data.items[0]).toEqual({
      id: ids[0],
      type: 'order.created',
      timestamp: row.created_at,
      data: JSON.parse(row.payload),
    });

    const second = await read(clinic, `?limit=2&after=${first.body.data.next_cursor}`);
    expect(second.body.data.items.map((e: { id: string }) => e.id)).toEqual(ids.slice(2, 4));
    const third = await read(clinic, `?limit=2&after=${second.body.data.next_cursor}`);
    expect(third.body.data.items.map((e: { id: string }) => e.id)).toEqual(ids.slice(4));
    // Nothing newer: an empty page whose cursor stays where the partner stood.
    const empty = await read(clinic, `?limit=2&after=${third.body.data.next_cursor}`);
    expect(empty.body.data).toEqual({ items: [], next_cursor: third.body.data.next_cursor });
    const [later] = await emit(clinic, ['order.cancelled']);
    const polled = await read(clinic, `?after=${empty.body.data.next_cursor}`);
    expect(polled.body.data.items.map((e: { id: string }) => e.id)).toEqual([later]);
  });

  it('when type filters, then only those types come, one or comma-separated; an unknown type is a 400 naming type', async () => {
    const clinic = await t.createClinic();
    const ids = await emit(clinic, ['order.created', 'order.delivered', 'order.on_hold', 'order.delivered']);
    const one = await read(clinic, '?type=order.delivered');
    expect(one.body.data.items.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[3]]);
    const two = await read(clinic, '?type=order.on_hold,order.delivered&limit=2');
    expect(two.body.data.items.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[2]]);
    const rest = await read(clinic, `?type=order.on_hold,order.delivered&limit=2&after=${two.body.data.next_cursor}`);
    expect(rest.body.data.items.map((e: { id: string }) => e.id)).toEqual([ids[3]]);
    const bad = await read(clinic, '?type=order.teleported');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.type).toContain('order.teleported');
    expect(bad.body.error.details.type).toContain('order.created');
  });

  it('when a cursor is another clinic’s, then 404; when it is not one this API returned, then 400 naming after', async () => {
    const a = await t.createClinic();
    const b = await t.createClinic();
    await emit(a, ['order.created']);
    const cursor = (await read(a)).body.data.next_cursor as string;
    const res = await read(b, `?after=${cursor}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const junk = await read(b, '?after=not-a-cursor');
    expect(junk.status).toBe(400);
    expect(junk.body.error.details).toHaveProperty('after');
  });

  it('when events are older than EVENT_RETENTION_DAYS, then the log leaves them out and the purge deletes them once dispatched', async () => {
    const clinic = await t.createClinic();
    const [old] = await emit(clinic, ['order.created']);
    await dispatchOutbox(t.ctx);
    clock.advance(31 * 86_400_000);
    const [fresh] = await emit(clinic, ['order.delivered']);
    const res = await read(clinic);
    expect(res.body.data.items.map((e: { id: string }) => e.id)).toEqual([fresh]);
    // The fresh event is not dispatched yet, nor within the cutoff: the purge keeps it.
    expect(await purgeEventLog(t.ctx)).toBeGreaterThanOrEqual(1);
    const left = await t.ctx.db.selectFrom('outbox_events').select('id').where('id', 'in', [old!, fresh!]).execute();
    expect(left.map((r) => r.id)).toEqual([fresh]);
  });

  it('when an event is younger than EVENT_LOG_SETTLE_MS, then it is left for a later poll, so that a change that began before it and commits after it still comes, in its place', async () => {
    const clinic = await t.createClinic();
    const settle = t.ctx.config.eventLogSettleMs;
    expect(settle).toBe(5_000);
    const [settled] = await emit(clinic, ['order.created']);
    clock.advance(settle);
    const [recent] = await emit(clinic, ['order.delivered']);
    const first = await readNow(clinic);
    expect(idsOf(first.body)).toEqual([settled]);
    // A change that began a millisecond before `recent` and commits only now.
    clock.advance(-2);
    const [late] = await emit(clinic, ['order.on_hold']);
    // Once both have settled: `recent` is the youngest, a millisecond younger than `late`.
    clock.advance(settle + 1);
    const next = await readNow(clinic, `?after=${first.body.data.next_cursor}`);
    expect(idsOf(next.body)).toEqual([late, recent]);
  });

  it('when a key lacks webhooks:read, then 403 names it; a key with webhooks:read reads the log', async () => {
    const clinic = await t.createClinic();
    const ordersOnly = (await issueApiKey(t.ctx, clinic.clinicId, null, undefined, { scopes: ['orders:read'] })).api_key;
    const webhooksRead = (await issueApiKey(t.ctx, clinic.clinicId, null, undefined, { scopes: ['webhooks:read'] })).api_key;
    const refused = await t.partner(ordersOnly).get('/api/external/events');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('webhooks:read');
    expect((await t.partner(webhooksRead).get('/api/external/events')).status).toBe(200);
  });
});
