// Over 250 lines: the fill's rules on both databases (recording, its refusals, shipping with and without it) share one setup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATES_AND_DC } from '../../src/shipping/licensed-states.js';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  createPatient,
  expectOk,
  getOrder,
  itemBody,
  outboxEventsOf,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';
import { autoAdvanceOnce } from '../../src/fulfillment/sandbox-auto-advance.js';

/**
 * The fill (issue 30, item 3; docs/compounding.md#the-fill) over HTTP: the pharmacy records each
 * item's lot, the server computes its beyond-use date; production refuses to ship an unfilled item
 * with a formula, development fills it with generated lots.
 */

/** USP <795>: aqueous, non-preserved, refrigerated: 14 days. */
const FORMULA = {
  ingredients: [
    { name: 'Semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true },
    { name: 'Sterile water', strength: '1', unit: 'mL', active: false },
  ],
  preparation: 'non_sterile',
  bud_category: 'aqueous_non_preserved',
  storage: 'refrigerated',
};
const NOW = Date.parse('2026-11-27T15:00:00.000Z');
const COMPOUNDED = '2026-11-27T10:30:00.000Z';

describe.each(DIALECTS)('the fill on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const time = fakeClock(NOW);

  /** A clinic whose Semaglutide has FORMULA and whose Gabapentin has none. */
  async function formulaSetup(app: TestApp): Promise<OrderSetup> {
    const made = await createOrderSetup(app, { formulary: ['Gabapentin'] });
    expectOk(
      await app.operator.post(`/api/admin/clinics/${made.clinic.clinicId}/medications`, { name: 'Semaglutide', ...FORMULA }),
      'add formula entry',
    );
    return made;
  }

  /**
   * The parties with a patient of their own: a second active order of the same formula for one
   * patient would be held at intake as duplicate therapy (docs/compounding.md#allergies-and-duplicate-therapy).
   */
  const ownPatient = async (app: TestApp, parties: OrderSetup): Promise<OrderSetup> => ({
    ...parties,
    patientId: await createPatient(app, parties.clinic, { practitionerId: parties.practitionerId }),
  });

  /** An order of Semaglutide (formula) then Gabapentin (none), moved to `processing`; its item ids in that order. */
  async function processingOrder(app: TestApp, parties: OrderSetup): Promise<{ id: string; items: string[] }> {
    const id = await createOrder(app, await ownPatient(app, parties), {
      medication_requests: [itemBody({ medication: 'Semaglutide' }), itemBody({ medication: 'Gabapentin', dose: '100mg' })],
    });
    const moved = expectOk(
      await app.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'processing' }),
      'process',
    );
    return { id, items: moved.medication_requests.map((item: { id: string }) => item.id) };
  }

  const fill = (app: TestApp, id: string, body: unknown) => app.operator.post(`/api/admin/medication-requests/${id}/fill`, body);

  const rowsOf = async (app: TestApp, id: string) => ({
    fills: await app.ctx.db.selectFrom('medication_item_fills').selectAll().where('medication_request_id', '=', id).execute(),
    lots: await app.ctx.db.selectFrom('fill_ingredient_lots').selectAll().where('medication_request_id', '=', id).execute(),
  });

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    setup = await formulaSetup(t);
  });
  afterAll(async () => t.close());

  it('when an order is filled, then the beyond-use date is the table’s, the partner reads lot, date and storage, and the pharmacy reads the whole fill', async () => {
    const order = await processingOrder(t, setup);
    const res = await fill(t, order.id, {
      items: [
        {
          item_id: order.items[0],
          lot_number: '24-117',
          compounded_at: COMPOUNDED,
          ingredient_lots: [
            { ingredient: 'Semaglutide sodium', lot_number: 'SEM-9.1', expires_on: '2027-06-30' },
            { ingredient: 'Sterile water', lot_number: 'W/55', expires_on: '2027-01-31' },
          ],
        },
        { item_id: order.items[1], lot_number: 'GAB-3', compounded_at: COMPOUNDED },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // aqueous_non_preserved: 14 days from 2026-11-27.
    expect(res.body.data.medication_requests.map((item: any) => item.fill)).toEqual([
      { lot_number: '24-117', beyond_use_date: '2026-12-11', storage: 'refrigerated' },
      // No formula: the lot only.
      { lot_number: 'GAB-3', beyond_use_date: null, storage: null },
    ]);
    expect((await getOrder(t, setup.clinic, order.id)).medication_requests[0]).toMatchObject({
      id: order.items[0],
      fill: { lot_number: '24-117', beyond_use_date: '2026-12-11', storage: 'refrigerated' },
    });

    const detail = expectOk(await t.operator.get(`/api/admin/medication-requests/${order.id}`), 'operator read');
    expect(detail.medication_requests[0].formula).toMatchObject({
      bud_category: 'aqueous_non_preserved',
      storage: 'refrigerated',
    });
    expect(detail.medication_requests[0].fill).toEqual({
      lot_number: '24-117',
      compounded_at: COMPOUNDED,
      beyond_use_date: '2026-12-11',
      storage: 'refrigerated',
      generated: false,
      ingredient_lots: [
        { ingredient: 'Semaglutide sodium', lot_number: 'SEM-9.1', expires_on: '2027-06-30' },
        { ingredient: 'Sterile water', lot_number: 'W/55', expires_on: '2027-01-31' },
      ],
      // The operator token is nobody by name.
      filled_by_id: null,
      filled_by_name: null,
      filled_at: new Date(NOW).toISOString(),
    });
    expect(detail.medication_requests[1].formula).toBeNull();
    const audit = await t.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('resource_id', '=', order.id)
      .where('action', '=', 'update')
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('when an ingredient lot expires before the table’s date, then the beyond-use date is that expiry', async () => {
    const order = await processingOrder(t, setup);
    const res = await fill(t, order.id, {
      items: [
        {
          item_id: order.items[0],
          lot_number: '24-118',
          compounded_at: COMPOUNDED,
          ingredient_lots: [{ ingredient: 'Semaglutide sodium', lot_number: 'SEM-1', expires_on: '2026-12-05' }],
        },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.medication_requests[0].fill.beyond_use_date).toBe('2026-12-05');
    expect(res.body.data.medication_requests[1].fill).toBeNull();
  });

  it('when the body is wrong, then 400 names the field and nothing is written', async () => {
    const order = await processingOrder(t, setup);
    const good = { item_id: order.items[0], lot_number: 'L-1', compounded_at: COMPOUNDED };
    const cases: [unknown, string][] = [
      [{ items: [{ ...good, item_id: '00000000-0000-4000-8000-000000000000' }] }, 'items[0].item_id'],
      [
        {
          items: [
            {
              ...good,
              ingredient_lots: [
                { ingredient: 'Semaglutide sodium', lot_number: 'A', expires_on: '2027-01-01' },
                { ingredient: 'Sterile water', lot_number: 'B', expires_on: '2026-11-26' },
              ],
            },
          ],
        },
        'items[0].ingredient_lots[1].expires_on',
      ],
      [{ items: [{ ...good, compounded_at: '2026-11-27T15:00:01.000Z' }] }, 'items[0].compounded_at'],
      [{ items: [good, { ...good, lot_number: 'L-2' }] }, 'items[1].item_id'],
      [{ items: [{ ...good, lot_number: 'L 1; drop' }] }, 'items[0].lot_number'],
      [{ items: [] }, 'items'],
    ];
    for (const [body, field] of cases) {
      const res = await fill(t, order.id, body);
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.error.details), field).toContain(field);
    }
    expect(await rowsOf(t, order.id)).toEqual({ fills: [], lots: [] });
  });

  it('when an item is filled twice, then the second is refused with 409 naming it and the first stays', async () => {
    const order = await processingOrder(t, setup);
    const body = { items: [{ item_id: order.items[0], lot_number: 'FIRST', compounded_at: COMPOUNDED }] };
    expect((await fill(t, order.id, body)).status).toBe(200);
    const again = await fill(t, order.id, {
      items: [
        { item_id: order.items[1], lot_number: 'OTHER', compounded_at: COMPOUNDED },
        { item_id: order.items[0], lot_number: 'SECOND', compounded_at: COMPOUNDED },
      ],
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect(Object.keys(again.body.error.details)).toEqual(['items[1].item_id']);
    // Nothing of the refused body was written: the other item is still unfilled.
    expect((await rowsOf(t, order.id)).fills.map((f) => f.lot_number)).toEqual(['FIRST']);
  });

  it('when two fills of one item are sent together, then exactly one is recorded and the other is refused with 409', async () => {
    const order = await processingOrder(t, setup);
    const answers = await Promise.all(
      ['RACE-1', 'RACE-2'].map((lot) =>
        fill(t, order.id, { items: [{ item_id: order.items[0], lot_number: lot, compounded_at: COMPOUNDED }] }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect((await rowsOf(t, order.id)).fills).toHaveLength(1);
  });

  it('when the order is pending, shipped or cancelled, then a fill is refused with 409; on hold, it is recorded', async () => {
    const pending = await createOrder(t, await ownPatient(t, setup), {
      medication_requests: [itemBody({ medication: 'Semaglutide' })],
    });
    const pendingItem = (await getOrder(t, setup.clinic, pending)).medication_requests[0].id;
    const body = (item: string) => ({ items: [{ item_id: item, lot_number: 'L-9', compounded_at: COMPOUNDED }] });
    expect((await fill(t, pending, body(pendingItem))).status).toBe(409);

    const cancelled = await processingOrder(t, setup);
    await advanceOrder(t, setup.clinic, cancelled.id, 'cancelled');
    expect((await fill(t, cancelled.id, body(cancelled.items[0] as string))).status).toBe(409);

    const shipped = await processingOrder(t, setup);
    await advanceOrder(t, setup.clinic, shipped.id, 'shipped');
    const refused = await fill(t, shipped.id, body(shipped.items[1] as string));
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toHaveProperty('status');

    const held = await processingOrder(t, setup);
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${held.id}/hold`, {
        reason_code: 'out_of_stock',
        message: 'Waiting',
      }),
      'hold',
    );
    expect((await fill(t, held.id, body(held.items[0] as string))).status).toBe(200);
  });

  it('when a development server ships an unfilled order through the sandbox, then every item is filled with generated lots and order.fulfilled carries them', async () => {
    const order = await processingOrder(t, setup);
    const shipped = await advanceOrder(t, setup.clinic, order.id, 'shipped');
    const [semaglutide, gabapentin] = shipped.medication_requests;
    // Compounded now (the injected clock): 2026-11-27 + 14 days.
    expect(semaglutide.fill).toEqual({
      lot_number: expect.stringMatching(/^DEV-[0-9A-F]{8}$/),
      beyond_use_date: '2026-12-11',
      storage: 'refrigerated',
    });
    expect(gabapentin.fill).toEqual({ lot_number: expect.stringMatching(/^DEV-/), beyond_use_date: null, storage: null });
    const { fills, lots } = await rowsOf(t, order.id);
    expect(fills.map((f) => f.generated)).toEqual([1, 1]);
    // A generated lot per ingredient of the formula.
    expect(lots.map((l) => l.ingredient).sort()).toEqual(['Semaglutide sodium', 'Sterile water']);

    const fulfilled = (await outboxEventsOf(t, order.id)).find((e) => e.type === 'order.fulfilled');
    expect(fulfilled?.payload.items).toEqual([
      { medication: 'Semaglutide', lot_number: semaglutide.fill.lot_number, beyond_use_date: '2026-12-11' },
      { medication: 'Gabapentin', lot_number: gabapentin.fill.lot_number, beyond_use_date: null },
    ]);
  });

  it('when a development server ships through the operator API, then the items the pharmacy did not fill are filled and the others kept', async () => {
    const order = await processingOrder(t, setup);
    expect(
      (await fill(t, order.id, { items: [{ item_id: order.items[0], lot_number: 'REAL-1', compounded_at: COMPOUNDED }] })).status,
    ).toBe(200);
    const res = await t.operator.post(`/api/admin/medication-requests/${order.id}/status`, {
      status: 'shipped',
      tracking_number: '123456789012',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.medication_requests.map((item: any) => item.fill.lot_number)).toEqual([
      'REAL-1',
      expect.stringMatching(/^DEV-/),
    ]);
  });

  it('when the development timer ships an unfilled order, then it is filled with generated lots too', async () => {
    const order = await processingOrder(t, setup);
    // Every order of this app still moving is due: each goes one step (this one, processing → shipped).
    await autoAdvanceOnce(t.ctx, 0);
    const read = await getOrder(t, setup.clinic, order.id);
    expect(read.status).toBe('shipped');
    expect(read.medication_requests.map((item: any) => item.fill?.lot_number)).toEqual([
      expect.stringMatching(/^DEV-/),
      expect.stringMatching(/^DEV-/),
    ]);
  });

  describe('in production', () => {
    let prod: TestApp;
    let parties: OrderSetup;
    beforeAll(async () => {
      // The sign-offs production also requires have their own tests (test/compounding/signoffs.test.ts).
      prod = await TestApp.start({
        dialect,
        clock: time.clock,
        env: { FULFILLMENT_ENV: 'production', REQUIRE_PHARMACIST_SIGNOFF: 'false' },
      });
      expectOk(await prod.operator.put('/api/admin/licensed-states', { states: [...STATES_AND_DC] }), 'licensed states');
      parties = await formulaSetup(prod);
    });
    afterAll(async () => prod.close());

    const ship = (id: string) =>
      prod.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'shipped', tracking_number: '123456789012' });

    it('when an item with a formula has no fill, then shipping is refused with 409 naming it; once filled, it ships with its lot in order.fulfilled', async () => {
      const order = await processingOrder(prod, parties);
      const refused = await ship(order.id);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONFLICT');
      expect(refused.body.error.message).toContain(order.items[0]);
      expect(refused.body.error.message).toContain('Semaglutide');
      // Only the item with a formula: Gabapentin has none and may ship unfilled.
      expect(Object.keys(refused.body.error.details)).toEqual(['medication_requests[0].fill']);
      expect(refused.body.error.details['medication_requests[0].fill']).toContain(order.items[0]);
      expect((await prod.operator.get(`/api/admin/medication-requests/${order.id}`)).body.data.status).toBe('processing');
      expect((await rowsOf(prod, order.id)).fills).toEqual([]);

      expectOk(
        await fill(prod, order.id, { items: [{ item_id: order.items[0], lot_number: '24-117', compounded_at: COMPOUNDED }] }),
        'fill',
      );
      const shipped = await ship(order.id);
      expect(shipped.status, JSON.stringify(shipped.body)).toBe(200);
      expect(shipped.body.data.medication_requests.map((item: any) => item.fill)).toEqual([
        { lot_number: '24-117', beyond_use_date: '2026-12-11', storage: 'refrigerated' },
        null,
      ]);
      const fulfilled = (await outboxEventsOf(prod, order.id)).find((e) => e.type === 'order.fulfilled');
      expect(fulfilled?.payload.items).toEqual([
        { medication: 'Semaglutide', lot_number: '24-117', beyond_use_date: '2026-12-11' },
        { medication: 'Gabapentin', lot_number: null, beyond_use_date: null },
      ]);
    });
  });
});
