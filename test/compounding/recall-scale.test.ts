import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbOrTrx, DialectName } from '../../src/db/database.js';
import { lotItemsQuery, lotOrdersOfClinicQuery } from '../../src/compounding/recall.repository.js';
import { createOrderSetup, type OrderSetup } from '../helpers/factories.js';
import { bulkLoad, postgresScans, sqlitePlan } from '../helpers/million-rows.js';
import { OPERATOR_TOKEN, TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/*
 * The recall at a million orders (docs/compounding.md#recall; issue 30: "Recall queries are bounded
 * and indexed"): each of its queries reads the lot's rows through the lot's indexes, never a table,
 * as the dashboard's test shows its own (test/dashboard/dashboard-scale.test.ts, whose helpers this
 * uses). One order in four has a fill, with one ingredient lot: a preparation lot is on 100 fills,
 * an ingredient lot on 200.
 */

const ORDERS = 1_000_000;
const FILLED_EVERY = 4;
const FILLS = ORDERS / FILLED_EVERY;
const PREPARATION_LOTS = 2_500;
const INGREDIENT_LOTS = 1_250;
const NOW = '2030-04-17T12:00:00.000Z';

const BIG_TABLES = ['medication_requests', 'medication_items', 'medication_item_fills', 'fill_ingredient_lots'];
/** The two recalls each query is asked for: a preparation lot (100 fills) and an ingredient lot (200). */
const LOTS = [
  { lot: 'P-0042', rows: FILLS / PREPARATION_LOTS },
  { lot: 'I-0042', rows: FILLS / INGREDIENT_LOTS },
];

describe.each(DIALECTS)('the recall at a million orders on %s', (dialect) => {
  let t: TestApp;
  let shop: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    shop = await createOrderSetup(t);
    await seed(t.ctx.db, dialect, shop);
  }, 600_000);
  afterAll(async () => t.close(), 120_000);

  /** Each recall query as the routes run it (the first page: the pharmacy's 50 + 1 rows, the partner's too). */
  const queries = (db: DbOrTrx) =>
    LOTS.flatMap(({ lot, rows }) => [
      { name: `pharmacy ${lot}`, query: lotItemsQuery(db, lot, undefined, 51), rows },
      { name: `partner ${lot}`, query: lotOrdersOfClinicQuery(db, shop.clinic.clinicId, lot, { limit: 51 }), rows },
    ]);

  it('when the seed is counted and a lot is recalled over HTTP, then the million orders are there and the recall lists the lot’s', async () => {
    const count = await sql<{ n: number | string }>`select count(*) as n from medication_requests`.execute(t.ctx.db);
    expect(Number(count.rows[0]?.n)).toBe(ORDERS);
    const csv = await t.request('GET', '/api/admin/lots/P-0042/orders', {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect((csv.body as string).trim().split('\r\n')).toHaveLength(1 + (LOTS[0]?.rows ?? 0));
    const partner = await t.partner(shop.clinic.apiKey).get('/api/external/medication-orders?lot_number=I-0042&limit=100');
    expect(partner.status).toBe(200);
    expect(partner.body.data.items).toHaveLength(100);
  });

  if (dialect === 'postgres') {
    it('when PostgreSQL runs each recall query, then no table is scanned whole and each scan reads at most the lot’s rows', async () => {
      for (const { name, query, rows } of queries(t.ctx.db)) {
        const scans = await postgresScans(t.ctx.db, query, BIG_TABLES);
        expect(scans.length, name).toBeGreaterThan(0);
        expect(
          scans.filter((scan) => scan.type.includes('Seq Scan')),
          name,
        ).toEqual([]);
        for (const scan of scans) expect(scan.rowsRead, `${name}: ${scan.relation}`).toBeLessThanOrEqual(rows);
        const read = scans.reduce((total, scan) => total + scan.rowsRead, 0);
        expect(read, `${name}: rows read in all for a lot of ${rows}`).toBeLessThanOrEqual(4 * rows);
      }
    });
  } else {
    it('when SQLite plans each recall query, then every table is searched by an index, never scanned', async () => {
      for (const { name, query } of queries(t.ctx.db)) {
        const plan = await sqlitePlan(t.ctx.db, query);
        const tables = plan.filter((line) => /^(SEARCH|SCAN) /.test(line));
        expect(tables.length, `${name}: ${plan.join(' | ')}`).toBeGreaterThan(0);
        // The lot's own rows, gathered first (`lot`, and the pharmacy's `x` inside it), are the only ones
        // scanned; every table is searched by the lot or by primary key. An index search on the clinic
        // alone (`clinic_id=?`, which an inner join or an IN list gets from SQLite) would read every
        // order of the clinic: all million here. The lot is `upper(lot_number)` (migration 036), which
        // SQLite's plan writes `<expr>`.
        for (const line of tables) {
          expect(line, `${name}: ${plan.join(' | ')}`).toMatch(
            /^(SEARCH \w+ USING (COVERING )?INDEX \w+ \((id=\?|(clinic_id=\? AND )?<expr>=\?)\)$|SCAN (lot|x)$)/,
          );
        }
      }
    });
  }

  it('when the lot index is missing, then the check sees the whole fills table read', async () => {
    const marker = new Error('rolled back');
    await expect(
      t.ctx.db.transaction().execute(async (trx) => {
        await sql`drop index item_fills_lot_idx`.execute(trx);
        await sql`drop index item_fills_clinic_lot_idx`.execute(trx);
        const query = lotItemsQuery(trx, 'P-0042', undefined, 51);
        if (dialect === 'postgres') {
          const scans = await postgresScans(trx, query, BIG_TABLES);
          expect(scans.reduce((total, scan) => total + scan.rowsRead, 0)).toBeGreaterThanOrEqual(FILLS);
        } else {
          // A text of its own: an EXPLAIN prepared before the drop (the statement cache) would show the old plan.
          expect((await sqlitePlan(trx, query, '/* without the index */')).join(' | ')).toMatch(/SCAN medication_item_fills/);
        }
        throw marker;
      }),
    ).rejects.toBe(marker);
  }, 120_000);
});

const SEEDED_TABLES = ['medication_requests', 'medication_items', 'medication_item_fills', 'fill_ingredient_lots'];

/**
 * A million orders of the shop, order i created i × 2 minutes before now; every fourth one (k = i / 4)
 * has one item, filled with lot P-(k mod 2500) and ingredient lot I-(k mod 1250). One statement per
 * table, which each database runs by itself (generate_series, a recursive CTE). Only the columns the
 * recall reads vary; the others hold valid constants.
 */
async function seed(db: DbOrTrx, dialect: DialectName, shop: OrderSetup): Promise<void> {
  const ids = { clinic: shop.clinic.clinicId, patient: shop.patientId, practitioner: shop.practitionerId };
  const pg = dialect === 'postgres';
  // The numbers 1..n as rows of a column i, and a zero-padded text of an integer expression.
  const numbers = (n: number) =>
    pg
      ? sql`generate_series(1, ${sql.lit(n)}) as n(i)`
      : sql`(with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(n)}) select i from n) as n`;
  const padded = (expression: string, width: number) =>
    pg ? sql.raw(`lpad((${expression})::text, ${width}, '0')`) : sql.raw(`printf('%0${width}d', ${expression})`);
  const created = pg
    ? sql.raw(
        `to_char((timestamptz '${NOW}' - make_interval(secs => i * 120)) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
      )
    : sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '${NOW}', printf('%d seconds', -(i * 120)))`);
  const k = `i * ${FILLED_EVERY}`;
  await bulkLoad(db, dialect, SEEDED_TABLES, async (trx) => {
    await sql`
      insert into medication_requests (id, clinic_id, patient_id, practitioner_id, status, carrier_id, carrier_name,
        service_id, service_name, shipping_original_cents, shipping_total_cents, is_refrigerated, shipped_at, created_at, updated_at)
      select 'seed-' || ${padded('i', 7)}, ${ids.clinic}, ${ids.patient}, ${ids.practitioner}, 'delivered',
        'fedex', 'FedEx', 'fedex_ground', 'FedEx Ground', 995, 995, 0, ${created}, ${created}, ${created}
      from ${numbers(ORDERS)}`.execute(trx);
    // Filled orders: order k = 4i (i from 1 to the fills' count).
    await sql`
      insert into medication_items (id, prescription_id, position, origin_item_id, medication, dose, quantity, refills, direction)
      select 'seed-item-' || ${padded('i', 7)}, 'seed-rx-' || ${padded('i', 7)}, 0, 'seed-item-' || ${padded('i', 7)},
        'Semaglutide', '0.25mg', 1, 0, 'Inject once weekly'
      from ${numbers(FILLS)}`.execute(trx);
    await sql`
      insert into medication_item_fills (id, medication_request_id, medication_item_id, clinic_id, lot_number,
        compounded_at, beyond_use_date, storage, generated, created_at)
      select 'seed-fill-' || ${padded('i', 7)}, 'seed-' || ${padded(k, 7)}, 'seed-item-' || ${padded('i', 7)}, ${ids.clinic},
        'P-' || ${padded(`i % ${PREPARATION_LOTS}`, 4)}, '2030-01-02T15:00:00.000Z', '2030-02-06', 'room', 0, '2030-01-02T15:00:00.000Z'
      from ${numbers(FILLS)}`.execute(trx);
    await sql`
      insert into fill_ingredient_lots (id, fill_id, medication_request_id, clinic_id, position, ingredient, lot_number, expires_on)
      select 'seed-ingredient-' || ${padded('i', 7)}, 'seed-fill-' || ${padded('i', 7)}, 'seed-' || ${padded(k, 7)}, ${ids.clinic},
        0, 'Semaglutide sodium', 'I-' || ${padded(`i % ${INGREDIENT_LOTS}`, 4)}, '2031-01-01'
      from ${numbers(FILLS)}`.execute(trx);
  });
  if (pg) for (const table of SEEDED_TABLES) await sql`analyze ${sql.id(table)}`.execute(db);
}
