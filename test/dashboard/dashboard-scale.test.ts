import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbOrTrx, DialectName } from '../../src/db/database.js';
import { dashboardWindows, WAITING_AGES, waitingBounds } from '../../src/dashboard/dashboard-windows.js';
import {
  attemptsPerHourQuery,
  holdCountsQuery,
  ordersPerDayQuery,
  shippedSinceQuery,
  waitingQuery,
} from '../../src/dashboard/dashboard.repository.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { createOrderSetup, type OrderSetup } from '../helpers/factories.js';
import { bulkLoad, postgresScans, sqlitePlan } from '../helpers/million-rows.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { emitEvent, fakeClock, registerEndpoint } from '../webhooks/support.js';

/*
 * The dashboard at a million orders (docs/console.md#dashboard): every query reads its window's rows
 * through an index, not the table. Asserted on the rows each database reads, never on time:
 * PostgreSQL's EXPLAIN ANALYZE counts the rows its scans of the big tables produced and filtered
 * out; SQLite's query plan must SEARCH those tables by an index, never SCAN them.
 */

const ORDERS = 1_000_000;
/** One order every 2 minutes, back from now: 3.8 years; 720 a day, 21,600 in the 30 days. */
const ORDER_SPACING_S = 120;
/** The last 3 days' orders are in every status; older ones delivered (one in 20 cancelled). */
const MIXED_ORDERS = (3 * 24 * 60 * 60) / ORDER_SPACING_S;
const ATTEMPTS = 250_000;
/** One webhook attempt every 8 minutes, back from now: 360 in the 48 hours. */
const ATTEMPT_SPACING_S = 480;

const NOW = '2030-04-17T12:00:00.000Z';

describe.each(DIALECTS)('the dashboard at a million orders on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse(NOW) - 60_000);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    const shop = await createOrderSetup(t);
    const deliveryId = await oneDelivery(t, shop);
    time.set(Date.parse(NOW));
    await seed(t.ctx.db, dialect, shop, deliveryId);
  }, 600_000);
  afterAll(async () => t.close(), 120_000);

  /** Each of the dashboard's bounded queries, as the route runs them now, with the rows its answer covers. */
  const queries = async (db: DbOrTrx) => {
    const now = new Date(NOW);
    const windows = dashboardWindows(now);
    const perDay = await ordersPerDayQuery(db, windows.ordersFrom).execute();
    const shipped = await shippedSinceQuery(db, windows.shippedFrom).execute();
    const waiting = await waitingQuery(db, waitingBounds(now), WAITING_AGES[0].age).execute();
    const attempts = await attemptsPerHourQuery(db, windows.attemptsFrom).execute();
    const holds = await holdCountsQuery(db).execute();
    const sum = (rows: readonly { count?: unknown; attempts?: unknown }[]) =>
      rows.reduce((total, row) => total + Number(row.count ?? row.attempts), 0);
    return [
      { name: 'orders per day', query: ordersPerDayQuery(db, windows.ordersFrom), covered: sum(perDay) },
      { name: 'time to ship', query: shippedSinceQuery(db, windows.shippedFrom), covered: shipped.length },
      { name: 'waiting', query: waitingQuery(db, waitingBounds(now), WAITING_AGES[0].age), covered: sum(waiting) },
      { name: 'webhook attempts', query: attemptsPerHourQuery(db, windows.attemptsFrom), covered: sum(attempts) },
      { name: 'holds', query: holdCountsQuery(db), covered: sum(holds) },
    ];
  };

  it('when the seed is counted, then a million orders are there and the windows hold a few percent of them', async () => {
    const count = await sql<{ n: number | string }>`select count(*) as n from medication_requests`.execute(t.ctx.db);
    expect(Number(count.rows[0]?.n)).toBe(ORDERS);
    const covered = Object.fromEntries((await queries(t.ctx.db)).map((q) => [q.name, q.covered]));
    expect(covered).toEqual({
      // From midnight 29 days ago to noon today.
      'orders per day': (29.5 * 24 * 60 * 60) / ORDER_SPACING_S,
      'time to ship': expect.any(Number),
      waiting: MIXED_ORDERS / 2,
      // From the start of the hour 47 hours ago to now (noon sharp).
      'webhook attempts': Math.floor((47 * 60 * 60) / ATTEMPT_SPACING_S),
      // None of the seed is on hold: the count reads no order at all.
      holds: 0,
    });
  });

  if (dialect === 'postgres') {
    it('when PostgreSQL runs each query, then no big table is scanned whole and the rows read stay within the window', async () => {
      for (const { name, query, covered } of await queries(t.ctx.db)) {
        const scans = await postgresScans(t.ctx.db, query, BIG_TABLES);
        expect(scans.length, name).toBeGreaterThan(0);
        expect(
          scans.filter((scan) => scan.type.includes('Seq Scan')),
          name,
        ).toEqual([]);
        const read = scans.reduce((total, scan) => total + scan.rowsRead, 0);
        expect(read, `${name}: rows read for ${covered} rows in the window`).toBeLessThanOrEqual(covered + 10);
      }
    });
  } else {
    it('when SQLite plans each query, then every big table is searched by an index, never scanned', async () => {
      for (const { name, query } of await queries(t.ctx.db)) {
        const plan = await sqlitePlan(t.ctx.db, query);
        const onBigTables = plan.filter((line) => BIG_TABLES.some((table) => line.includes(table)));
        expect(onBigTables.length, `${name}: ${plan.join(' | ')}`).toBeGreaterThan(0);
        for (const line of onBigTables) expect(line, name).toMatch(/^SEARCH \w+ USING (COVERING )?INDEX \w+ \((\w+[>=])/);
      }
    });
  }

  it('when the shipped_at index is missing, then the check sees the whole table read', async () => {
    const marker = new Error('rolled back');
    await expect(
      t.ctx.db.transaction().execute(async (trx) => {
        await sql`drop index medication_requests_shipped_created_idx`.execute(trx);
        const query = shippedSinceQuery(trx, dashboardWindows(new Date(NOW)).shippedFrom);
        if (dialect === 'postgres') {
          const scans = await postgresScans(trx, query, BIG_TABLES);
          expect(scans.reduce((total, scan) => total + scan.rowsRead, 0)).toBeGreaterThanOrEqual(ORDERS);
        } else {
          // A text of its own: an EXPLAIN prepared before the drop (the statement cache) would show the old plan.
          expect((await sqlitePlan(trx, query, '/* without the index */')).join(' | ')).toMatch(/SCAN medication_requests/);
        }
        throw marker;
      }),
    ).rejects.toBe(marker);
    // Reading the whole million can take a while on a loaded machine: this only bounds the wait.
  }, 120_000);
});

const BIG_TABLES = ['medication_requests', 'webhook_delivery_attempts'];

/** One delivery of an event to an endpoint of the shop, which the seeded attempts belong to. */
async function oneDelivery(t: TestApp, shop: OrderSetup): Promise<string> {
  await registerEndpoint(t, shop.clinic, 'https://partner.example.com/hooks');
  const eventId = await emitEvent(t.ctx, shop.clinic.clinicId);
  await dispatchOutbox(t.ctx);
  const row = await t.ctx.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A million orders of the shop in one statement each database runs by itself (a recursive CTE,
 * generate_series), order i created i × 2 minutes before now; and the delivery's attempts, attempt i
 * made i × 8 minutes before now, one in four without a 2xx. Only the columns the dashboard reads
 * vary; the others hold valid constants.
 */
async function seed(db: DbOrTrx, dialect: DialectName, shop: OrderSetup, deliveryId: string): Promise<void> {
  const ids = { clinic: shop.clinic.clinicId, patient: shop.patientId, practitioner: shop.practitionerId };
  if (dialect === 'postgres') {
    const at = (secondsBeforeNow: string) =>
      `to_char((timestamptz '${NOW}' - make_interval(secs => ${secondsBeforeNow})) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    await bulkLoad(db, dialect, SEEDED_TABLES, async (trx) => {
      await sql`
        insert into medication_requests (id, clinic_id, patient_id, practitioner_id, status, carrier_id, carrier_name,
          service_id, service_name, shipping_original_cents, shipping_total_cents, is_refrigerated, shipped_at, created_at, updated_at)
        select 'seed-' || lpad(i::text, 7, '0'), ${ids.clinic}, ${ids.patient}, ${ids.practitioner}, s.status,
          'fedex', 'FedEx', 'fedex_ground', 'FedEx Ground', 995, 995, 0,
          case when s.status in ('shipped', 'delivered') then ${sql.raw(at(`i * ${ORDER_SPACING_S} - s.to_ship`))} end,
          c.created, c.created
        from generate_series(1, ${sql.lit(ORDERS)}) as i,
        lateral (select
          case when i <= ${sql.lit(MIXED_ORDERS)} then (array['pending', 'processing', 'shipped', 'cancelled'])[i % 4 + 1]
               when i % 20 = 0 then 'cancelled' else 'delivered' end as status,
          case when i <= ${sql.lit(MIXED_ORDERS)} then i * 60 else (i % 48 + 1) * 1800 end as to_ship) as s,
        lateral (select ${sql.raw(at(`i * ${ORDER_SPACING_S}`))} as created) as c`.execute(trx);
      await sql`
        insert into webhook_delivery_attempts (id, delivery_id, endpoint_id, event_id, attempt_number, attempted_at, duration_ms, response_status)
        select 'seed-' || lpad(i::text, 7, '0'), d.id, d.endpoint_id, d.event_id, i + 1,
          ${sql.raw(at(`i * ${ATTEMPT_SPACING_S}`))}, 120, case when i % 4 = 0 then 500 else 200 end
        from generate_series(1, ${sql.lit(ATTEMPTS)}) as i, webhook_deliveries d where d.id = ${deliveryId}`.execute(trx);
    });
    await sql`analyze medication_requests`.execute(db);
    await sql`analyze webhook_delivery_attempts`.execute(db);
    return;
  }
  const at = (secondsBeforeNow: string) =>
    `strftime('%Y-%m-%dT%H:%M:%fZ', '${NOW}', printf('%d seconds', -(${secondsBeforeNow})))`;
  await bulkLoad(db, dialect, SEEDED_TABLES, async (trx) => {
    await sql`
      insert into medication_requests (id, clinic_id, patient_id, practitioner_id, status, carrier_id, carrier_name,
        service_id, service_name, shipping_original_cents, shipping_total_cents, is_refrigerated, shipped_at, created_at, updated_at)
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(ORDERS)}),
      s as (select i, ${sql.raw(at(`i * ${ORDER_SPACING_S}`))} as created,
        case when i <= ${sql.lit(MIXED_ORDERS)} then case i % 4 when 0 then 'pending' when 1 then 'processing' when 2 then 'shipped' else 'cancelled' end
             when i % 20 = 0 then 'cancelled' else 'delivered' end as status,
        case when i <= ${sql.lit(MIXED_ORDERS)} then i * 60 else (i % 48 + 1) * 1800 end as to_ship from n)
      select printf('seed-%07d', i), ${ids.clinic}, ${ids.patient}, ${ids.practitioner}, status,
        'fedex', 'FedEx', 'fedex_ground', 'FedEx Ground', 995, 995, 0,
        case when status in ('shipped', 'delivered') then ${sql.raw(at(`i * ${ORDER_SPACING_S} - to_ship`))} end,
        created, created
      from s`.execute(trx);
    await sql`
      insert into webhook_delivery_attempts (id, delivery_id, endpoint_id, event_id, attempt_number, attempted_at, duration_ms, response_status)
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(ATTEMPTS)})
      select printf('seed-%07d', i), d.id, d.endpoint_id, d.event_id, i + 1,
        ${sql.raw(at(`i * ${ATTEMPT_SPACING_S}`))}, 120, case when i % 4 = 0 then 500 else 200 end
      from n, webhook_deliveries d where d.id = ${deliveryId}`.execute(trx);
  });
}

const SEEDED_TABLES = ['medication_requests', 'webhook_delivery_attempts'];
