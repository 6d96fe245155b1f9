import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbOrTrx, DialectName } from '../../src/db/database.js';
import type { PagePosition } from '../../src/db/keyset-page.js';
import { EVENT_LOG_LIMIT, encodeEventCursor, eventWindowAt, parseTypeFilter } from '../../src/events/event-log.service.js';
import { eventPageQueries } from '../../src/events/event-log.repository.js';
import { EVENT_TYPES } from '../../src/events/event-types.js';
import { bulkLoad, postgresScans, sqlitePlan } from '../helpers/million-rows.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/*
 * The event log at a million events (issue 31, Performance: "The events read of a clinic with
 * 1,000,000 events reads at most its page: the test counts rows read"). A page reads a range of
 * migration 029's (clinic_id, created_at, id) index, or of (clinic_id, type, created_at, id) per type
 * asked, never the clinic's events, as the recall's test shows its own (test/compounding/recall-scale.test.ts,
 * whose helpers this uses). The clinic's event i happened i × 3 seconds before now, so its oldest
 * seventh is older than the 30 days kept, and its type is EVENT_TYPES[i mod 8]; another clinic has
 * 100,000 events of its own, interleaved.
 */

const EVENTS = 1_000_000;
const OTHER_EVENTS = 100_000;
const NOW = '2031-06-01T12:00:00.000Z';
const LIMIT = EVENT_LOG_LIMIT.max;
/** The clinic's event i: its id (a UUID, as cursors require) and its time. */
const eventId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const eventTime = (i: number) => new Date(Date.parse(NOW) - i * 3_000).toISOString();
/** An event in the middle of the days kept: a page after it has hundreds of thousands of events before and after. */
const MIDDLE: PagePosition = { createdAt: eventTime(EVENTS / 2), id: eventId(EVENTS / 2) };
const BEFORE_EVERYTHING: PagePosition = { createdAt: '1970-01-01T00:00:00.000Z', id: '00000000-0000-0000-0000-000000000000' };

describe.each(DIALECTS)('the event log at a million events on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: () => new Date(NOW) });
    clinic = await t.createClinic();
    other = await t.createClinic();
    await seed(t.ctx.db, dialect, clinic.clinicId, other.clinicId);
  }, 600_000);
  afterAll(async () => t.close(), 120_000);

  const window = () => eventWindowAt(new Date(NOW), t.ctx.config);
  /** Each page the route reads, as its queries (one per type asked): the first, after the middle, by type. */
  const pages = (db: DbOrTrx) =>
    [
      { name: 'first page', position: BEFORE_EVERYTHING, type: undefined },
      { name: 'after the middle', position: MIDDLE, type: undefined },
      { name: 'order.delivered, first page', position: BEFORE_EVERYTHING, type: 'order.delivered' },
      { name: 'order.delivered, after the middle', position: MIDDLE, type: 'order.delivered' },
      { name: 'two types, after the middle', position: MIDDLE, type: 'order.on_hold,order.delivered' },
    ].flatMap(({ name, position, type }) =>
      eventPageQueries(db, clinic.clinicId, position, window(), parseTypeFilter(type), LIMIT).map((query, n) => ({
        name: `${name} (query ${n + 1})`,
        query,
      })),
    );

  it('when the seed is counted and pages are read over HTTP, then the million events are there and each page is the next 100 kept, oldest first', async () => {
    const count = await sql<{
      n: number | string;
    }>`select count(*) as n from outbox_events where clinic_id = ${clinic.clinicId}`.execute(t.ctx.db);
    expect(Number(count.rows[0]?.n)).toBe(EVENTS);
    const partner = t.partner(clinic.apiKey);
    // The oldest event kept: the last i whose time is within the retention.
    const oldestKept = Math.floor((t.ctx.config.eventRetentionDays * 86_400) / 3);
    const first = await partner.get(`/api/external/events?limit=${LIMIT}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const ids = (body: { data: { items: { id: string }[] } }) => body.data.items.map((event) => event.id);
    expect(ids(first.body)).toEqual(Array.from({ length: LIMIT }, (_, k) => eventId(oldestKept - k)));
    const middle = await partner.get(`/api/external/events?limit=${LIMIT}&after=${encodeEventCursor(clinic.clinicId, MIDDLE)}`);
    expect(ids(middle.body)).toEqual(Array.from({ length: LIMIT }, (_, k) => eventId(EVENTS / 2 - 1 - k)));
    const delivered = EVENT_TYPES.indexOf('order.delivered');
    const typed = await partner.get(
      `/api/external/events?limit=${LIMIT}&type=order.on_hold,order.delivered&after=${encodeEventCursor(clinic.clinicId, MIDDLE)}`,
    );
    const onHold = EVENT_TYPES.indexOf('order.on_hold');
    const expected = [];
    for (let i = EVENTS / 2 - 1; expected.length < LIMIT; i--) {
      if (i % EVENT_TYPES.length === delivered || i % EVENT_TYPES.length === onHold) expected.push(eventId(i));
    }
    expect(ids(typed.body)).toEqual(expected);
  });

  if (dialect === 'postgres') {
    it('when PostgreSQL runs each page’s query, then it reads the clinic’s index range, at most the page and the cursor’s row, never a table or a sort', async () => {
      for (const { name, query } of pages(t.ctx.db)) {
        const scans = await postgresScans(t.ctx.db, query, ['outbox_events']);
        expect(scans.length, name).toBeGreaterThan(0);
        for (const scan of scans) {
          expect(scan.type, name).toMatch(/^Index (Only )?Scan$/);
          expect(scan.rowsRead, `${name}: rows read`).toBeLessThanOrEqual(LIMIT + 1);
        }
        const compiled = query.compile();
        const plan = await t.ctx.db.executeQuery<{ 'QUERY PLAN': string }>({
          ...compiled,
          sql: `explain ${compiled.sql}`,
        });
        expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n'), name).not.toMatch(/Sort|Seq Scan/);
      }
    });
  } else {
    it('when SQLite plans each page’s query, then it searches a range of the clinic’s log index, never scans nor sorts', async () => {
      for (const { name, query } of pages(t.ctx.db)) {
        const plan = await sqlitePlan(t.ctx.db, query);
        const description = `${name}: ${plan.join(' | ')}`;
        expect(plan.length, description).toBeGreaterThan(0);
        // A search on the clinic (and type) alone would read every event of the clinic before the cursor;
        // the range ends at the settled horizon (EVENT_LOG_SETTLE_MS).
        for (const line of plan) {
          expect(line, description).toMatch(
            /^SEARCH outbox_events USING INDEX outbox_events_clinic_(type_)?log_idx \(clinic_id=\? (AND type=\? )?AND created_at>\? AND created_at<\?\)$/,
          );
        }
      }
    });
  }
});

/**
 * The clinic's million events and the other clinic's hundred thousand, dispatched already: one
 * statement each, which each database runs by itself (generate_series, a recursive CTE). Only the
 * columns the log reads vary.
 */
async function seed(db: DbOrTrx, dialect: DialectName, clinicId: string, otherClinicId: string): Promise<void> {
  const pg = dialect === 'postgres';
  const numbers = (n: number) =>
    pg
      ? sql`generate_series(1, ${sql.lit(n)}) as n(i)`
      : sql`(with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(n)}) select i from n) as n`;
  const padded = (expression: string, width: number) =>
    pg ? sql.raw(`lpad((${expression})::text, ${width}, '0')`) : sql.raw(`printf('%0${width}d', ${expression})`);
  const time = (seconds: string) =>
    pg
      ? sql.raw(
          `to_char((timestamptz '${NOW}' - make_interval(secs => ${seconds})) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
        )
      : sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '${NOW}', printf('%d seconds', -(${seconds})))`);
  const types = `(${EVENT_TYPES.map((type) => `'${type}'`).join(', ')})`;
  const typeOf = pg
    ? sql.raw(`(array[${types.slice(1, -1)}])[i % ${EVENT_TYPES.length} + 1]`)
    : sql.raw(`(select value from json_each('${JSON.stringify(EVENT_TYPES)}') where key = i % ${EVENT_TYPES.length})`);
  const payload = JSON.stringify({ medication_request_id: 'seed', status: 'created', sequence: 1 });
  await bulkLoad(db, dialect, ['outbox_events'], async (trx) => {
    await sql`
      insert into outbox_events (id, clinic_id, type, payload, created_at, dispatched_at)
      select '00000000-0000-4000-8000-' || ${padded('i', 12)}, ${clinicId}, ${typeOf}, ${payload}, ${time('i * 3')}, ${NOW}
      from ${numbers(EVENTS)}`.execute(trx);
    await sql`
      insert into outbox_events (id, clinic_id, type, payload, created_at, dispatched_at)
      select '00000000-0000-4000-9000-' || ${padded('i', 12)}, ${otherClinicId}, ${typeOf}, ${payload}, ${time('i * 30 + 1')}, ${NOW}
      from ${numbers(OTHER_EVENTS)}`.execute(trx);
  });
  if (pg) await sql`analyze outbox_events`.execute(db);
}
