// Over 250 lines: the recall's reads (the pharmacy's, JSON and CSV, and the partner's) over one set of filled orders on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../audit/support.js';
import { advanceOrder, createOrder, createOrderSetup, itemBody, type OrderSetup } from '../helpers/factories.js';
import { insertFillRowsFixture } from '../helpers/fill-rows.js';
import { allPages, expectFieldRefused } from '../helpers/pages.js';
import { OPERATOR_TOKEN, TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/*
 * The recall (issue 30, item 4; docs/compounding.md#recall): which orders received a lot, for the
 * pharmacy across clinics (GET /api/admin/lots/{lot_number}/orders, JSON or CSV) and for a partner
 * within its clinic (GET /api/external/medication-orders?lot_number=). The orders are made over
 * HTTP; their fills are written by a fixture (test/helpers/fill-rows.ts), as the fill route would.
 */

const ADMIN = (lot: string, query = '') => `/api/admin/lots/${encodeURIComponent(lot)}/orders${query}`;
const PARTNER = '/api/external/medication-orders';
/** The factory patient's phone (test/helpers/fixtures.ts patientBody), as stored. */
const PHONE = '555-555-0101';

describe.each(DIALECTS)('recall of a lot on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock();
  let north: OrderSetup;
  let harbor: OrderSetup;
  /** North's, Semaglutide of lot LOT-A; shipped. */
  let o1 = '';
  /** Harbor's (a patient whose name starts with `=` and holds a quote and a comma): item 0 of lot LOT-B made with ingredient lot LOT-A; item 1 of LOT-C. */
  let o2 = '';
  /** North's, lot LOT-C, made with two ingredients both of lot LOT-A (one row). */
  let o3 = '';
  /** North's, lot LOT-Z: no part of the recall. */
  let o4 = '';
  /** North's, lot LOT-A whose ingredient is of LOT-A too (one row, a preparation match). */
  let o5 = '';
  let item2: string | undefined;

  const admin = async (lot: string, query = '') => {
    const res = await t.operator.get(ADMIN(lot, query));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { items: Record<string, any>[]; next_cursor: string | null };
  };
  const csv = (lot: string, query = '') =>
    t.request('GET', ADMIN(lot, query), { headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, accept: 'text/csv' } });
  const partnerIds = async (setup: OrderSetup, lot: string) =>
    (await allPages(t, setup.clinic, `${PARTNER}?lot_number=${encodeURIComponent(lot)}`))
      .flat()
      .map((o) => o.medication_request_id);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    north = await createOrderSetup(t, { clinicName: 'Northside Pharmacy Partners' });
    harbor = await createOrderSetup(t, {
      clinicName: 'Harbor Clinic',
      patient: { first_name: '=SUM(A1)', last_name: 'O"Brien, Jr' },
    });
    o1 = await createOrder(t, north);
    await insertFillRowsFixture(t.ctx.db, o1, [{ lot_number: 'LOT-A' }]);
    await advanceOrder(t, north.clinic, o1, 'shipped');
    time.advance(1000);
    o2 = await createOrder(t, harbor, {
      medication_requests: [itemBody(), itemBody({ medication: 'Progesterone', dose: '100mg', direction: 'Take one at night' })],
    });
    [item2] = await insertFillRowsFixture(t.ctx.db, o2, [
      { position: 0, lot_number: 'LOT-B', ingredient_lots: [{ ingredient: 'Semaglutide sodium', lot_number: 'LOT-A' }] },
      { position: 1, lot_number: 'LOT-C' },
    ]);
    time.advance(1000);
    o3 = await createOrder(t, north);
    await insertFillRowsFixture(t.ctx.db, o3, [
      {
        lot_number: 'LOT-C',
        ingredient_lots: [
          { ingredient: 'Water', lot_number: 'LOT-A' },
          { ingredient: 'Benzyl alcohol', lot_number: 'LOT-A' },
        ],
      },
    ]);
    time.advance(1000);
    o4 = await createOrder(t, north);
    await insertFillRowsFixture(t.ctx.db, o4, [{ lot_number: 'LOT-Z' }]);
    time.advance(1000);
    o5 = await createOrder(t, north);
    await insertFillRowsFixture(t.ctx.db, o5, [
      { lot_number: 'LOT-A', ingredient_lots: [{ ingredient: 'Semaglutide', lot_number: 'LOT-A' }] },
    ]);
  });
  afterAll(async () => t.close());

  it('when the pharmacy recalls a lot, then every order of every clinic that received it is listed once per item, newest first', async () => {
    const page = await admin('LOT-A');
    expect(page.next_cursor).toBeNull();
    expect(page.items.map((item) => [item.medication_request_id, item.match, item.ingredient])).toEqual([
      [o5, 'preparation', null],
      [o3, 'ingredient', 'Benzyl alcohol'],
      [o2, 'ingredient', 'Semaglutide sodium'],
      [o1, 'preparation', null],
    ]);
    const [, , second, first] = page.items;
    expect(first).toMatchObject({
      clinic_id: north.clinic.clinicId,
      clinic_name: 'Northside Pharmacy Partners',
      patient: { patient_id: north.patientId, first_name: 'Grace', last_name: 'Hopper' },
      status: 'shipped',
      shipped_at: expect.any(String),
      medication: 'Semaglutide',
      quantity: 1,
      unit_of_measure: 'each',
      fill_lot_number: 'LOT-A',
      beyond_use_date: '2030-02-06',
    });
    expect(second).toMatchObject({
      clinic_id: harbor.clinic.clinicId,
      clinic_name: 'Harbor Clinic',
      patient: { first_name: '=SUM(A1)', last_name: 'O"Brien, Jr' },
      status: 'pending',
      shipped_at: null,
      medication_item_id: item2,
      medication: 'Semaglutide',
      fill_lot_number: 'LOT-B',
    });
  });

  it('when a lot is an item’s own lot in one order and not another, then only the items of that lot are listed', async () => {
    const page = await admin('LOT-C');
    expect(page.items.map((item) => [item.medication_request_id, item.medication, item.match])).toEqual([
      [o3, 'Semaglutide', 'preparation'],
      [o2, 'Progesterone', 'preparation'],
    ]);
    expect((await admin('LOT-Z')).items.map((item) => item.medication_request_id)).toEqual([o4]);
    expect((await admin('NO-SUCH-LOT')).items).toEqual([]);
  });

  it('when the pharmacy pages through a recall, then the pages hold every row once, in the same order', async () => {
    const whole = (await admin('LOT-A')).items.map((item) => item.medication_item_id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await admin('LOT-A', `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.items).toHaveLength(1);
      paged.push(...page.items.map((item) => item.medication_item_id as string));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(paged).toEqual(whole);
    const refused = await t.operator.get(ADMIN('LOT-A', '?cursor=bm90LWEtY3Vyc29y'));
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.error.details)).toEqual(['cursor']);
    expect((await t.operator.get(ADMIN('LOT-A', '?limit=101'))).status).toBe(400);
  });

  it('when the pharmacy asks for CSV, then the same rows come as CSV with a header, formulas neutralized and quotes doubled', async () => {
    const res = await csv('LOT-A');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="recall-LOT-A.csv"');
    const text = res.body as string;
    expect(text.endsWith('\r\n')).toBe(true);
    const lines = text.slice(0, -2).split('\r\n');
    const cells = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]).slice(0, 16);
    expect(lines[0]).toBe(
      'medication_request_id,clinic_id,clinic_name,patient_id,patient_first_name,patient_last_name,status,shipped_at,created_at,medication_item_id,medication,match,ingredient,fill_lot_number,compounded_at,beyond_use_date,quantity,unit_of_measure,patient_phone,address_line_1,address_line_2,city,state,postal_code',
    );
    const json = (await admin('LOT-A')).items;
    expect(lines.slice(1).map((line) => cells(line)[9])).toEqual(json.map((item) => item.medication_item_id));
    const harborLine = lines.find((line) => line.startsWith(o2));
    expect(harborLine).toBe(
      [
        o2,
        harbor.clinic.clinicId,
        'Harbor Clinic',
        harbor.patientId,
        "'=SUM(A1)",
        '"O""Brien, Jr"',
        'pending',
        '',
        json[2]?.created_at,
        item2,
        'Semaglutide',
        'ingredient',
        'Semaglutide sodium',
        'LOT-B',
        '2030-01-02T15:00:00.000Z',
        '2030-02-06',
        '1',
        'each',
        PHONE,
        '2 Elm St',
        'Apt 3',
        'Sacramento',
        'CA',
        '95814',
      ].join(','),
    );
  });

  it('when an order shipped to an address of its own, then the CSV gives that address to reach the patient, and the patient’s phone', async () => {
    await t.ctx.db
      .updateTable('medication_requests')
      .set({
        ship_to_address_line1: '9 Harbor Way',
        ship_to_address_line2: null,
        ship_to_city: 'Fresno',
        ship_to_state: 'CA',
        ship_to_postal_code: '93721',
      })
      .where('id', '=', o1)
      .execute();
    const lines = ((await csv('LOT-A')).body as string).split('\r\n');
    expect(
      lines
        .find((line) => line.startsWith(o1))
        ?.split(',')
        .slice(-6),
    ).toEqual([PHONE, '9 Harbor Way', '', 'Fresno', 'CA', '93721']);
  });

  it('when a lot is recalled in another case than it was recorded, then the same orders are found, for the pharmacy and a partner', async () => {
    const upper = (await admin('LOT-A')).items.map((item) => item.medication_item_id);
    expect(upper.length).toBeGreaterThan(0);
    expect((await admin('lot-a')).items.map((item) => item.medication_item_id)).toEqual(upper);
    expect((await admin('Lot-A')).items.map((item) => item.medication_item_id)).toEqual(upper);
    expect(await partnerIds(north, 'lot-a')).toEqual(await partnerIds(north, 'LOT-A'));
    expect(await partnerIds(harbor, 'lot-c')).toEqual([o2]);
  });

  it('when the CSV export runs past one page of reads, then it holds the whole list, and a bad cursor is refused before any line', async () => {
    // 501 items of one lot: more than the export's page of 500 rows.
    const many: string[] = [];
    for (let i = 0; i < 501; i += 1) {
      time.advance(1000);
      const orderId = await createOrder(t, north);
      await insertFillRowsFixture(t.ctx.db, orderId, [{ lot_number: 'LOT-MANY' }]);
      many.push(orderId);
    }
    const res = await csv('LOT-MANY');
    expect(res.status).toBe(200);
    const lines = (res.body as string).slice(0, -2).split('\r\n');
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([...many].reverse());
    const refused = await csv('LOT-MANY', '?cursor=bm90LWEtY3Vyc29y');
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toHaveProperty('cursor');
  }, 120_000);

  it('when an Accept header allows neither JSON nor CSV, then the recall is refused with 406; without one it answers JSON', async () => {
    const refused = await t.request('GET', ADMIN('LOT-A'), {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, accept: 'text/html' },
    });
    expect(refused.status).toBe(406);
    const json = await t.request('GET', ADMIN('LOT-A'), {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, accept: '*/*' },
    });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
  });

  it('when a partner filters its orders by a lot, then it sees its own clinic’s orders that received it, by either match', async () => {
    expect(await partnerIds(north, 'LOT-A')).toEqual([o5, o3, o1]);
    expect(await partnerIds(harbor, 'LOT-A')).toEqual([o2]);
    // Two items of one order of the lot: the order once.
    expect(await partnerIds(harbor, 'LOT-C')).toEqual([o2]);
    expect(await partnerIds(north, 'LOT-C')).toEqual([o3]);
    // Another clinic's lot matches nothing.
    expect(await partnerIds(north, 'LOT-B')).toEqual([]);
    const pages = await allPages(t, north.clinic, `${PARTNER}?lot_number=LOT-A&limit=1`);
    expect(pages.map((page) => page.map((o) => o.medication_request_id))).toEqual([[o5], [o3], [o1]]);
    const shipped = await allPages(t, north.clinic, `${PARTNER}?lot_number=LOT-A&status=shipped`);
    expect(shipped.flat().map((o) => o.medication_request_id)).toEqual([o1]);
  });

  it('when a partner lists by a lot, then each order is the list’s usual item in the usual envelope', async () => {
    const res = await t.partner(north.clinic.apiKey).get(`${PARTNER}?lot_number=LOT-Z`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Medication requests retrieved successfully');
    expect(res.body.data.next_cursor).toBeNull();
    const single = await t.partner(north.clinic.apiKey).get(`/api/external/medication-order/${o4}`);
    expect(res.body.data.items).toEqual([single.body.data]);
  });

  it('when a lot number is too long or holds control characters, then both routes refuse it with 400 naming lot_number', async () => {
    for (const bad of ['L'.repeat(41), 'LOT\u0001A', 'LOT\u202eA']) {
      const res = await t.operator.get(ADMIN(bad));
      expect(res.status, bad).toBe(400);
      expect(Object.keys(res.body.error.details), bad).toEqual(['lot_number']);
      await expectFieldRefused(t, north.clinic, `${PARTNER}?lot_number=${encodeURIComponent(bad)}`, 'lot_number');
    }
    await expectFieldRefused(t, north.clinic, `${PARTNER}?lot_number=`, 'lot_number');
    expect((await t.operator.get(ADMIN('L'.repeat(40)))).status).toBe(200);
    // A slash, as some lots have, is sent encoded in the path.
    expect((await t.operator.get(ADMIN('24/117'))).status).toBe(200);
  });

  it('when the pharmacy recalls a lot, then each order and patient listed is recorded as read', async () => {
    await admin('LOT-C');
    const reads = (await auditRows(t.ctx)).filter((row) => row.action === 'read' && row.actor_type === 'operator');
    const read = (type: string, id: string) => reads.some((row) => row.resource_type === type && row.resource_id === id);
    expect(read('medication_request', o3) && read('medication_request', o2)).toBe(true);
    expect(read('patient', harbor.patientId) && read('patient', north.patientId)).toBe(true);
  });
});
