import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { listOrders } from '../../src/fulfillment/order-read.service.js';
import { auditRows } from '../audit/support.js';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  createPatient,
  getOrder,
  itemBody,
  requestRefill,
  type OrderSetup,
} from '../helpers/factories.js';
import { allPages, expectFieldRefused } from '../helpers/pages.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

const LIST = '/api/external/medication-orders';

describe.each(DIALECTS)('GET /api/external/medication-orders on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let other: OrderSetup;
  /** Setup's orders, oldest first: a shipped original with refills, its refill, a cancelled one, and one of a second patient. */
  const orders: string[] = [];
  let secondPatientId: string;

  // Each order a second after the previous: "newest first" is then the creation order reversed.
  const time = fakeClock();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    setup = await createOrderSetup(t);
    other = await createOrderSetup(t, { clinicName: 'Other Clinic' });
    const original = await createOrder(t, setup, { medication_requests: [itemBody({ refills: '2' })] });
    await advanceOrder(t, setup.clinic, original, 'shipped');
    time.advance(1000);
    const refill = await requestRefill(t, setup.clinic, original);
    time.advance(1000);
    const cancelled = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, cancelled, 'cancelled');
    secondPatientId = await createPatient(t, setup.clinic, { practitionerId: setup.practitionerId });
    time.advance(1000);
    const ofSecond = await createOrder(t, { ...setup, patientId: secondPatientId });
    orders.push(original, refill.medication_order_id, cancelled, ofSecond);
    await createOrder(t, other);
  });
  afterAll(async () => t.close());

  it('when a partner lists its orders, then it sees its own only, newest first, each as its GET shows it', async () => {
    const res = await t.partner(setup.clinic.apiKey).get(LIST);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Medication requests retrieved successfully');
    expect(res.body.data.next_cursor).toBeNull();
    const ids = res.body.data.items.map((o: any) => o.medication_request_id);
    expect(ids).toEqual([...orders].reverse());
    for (const item of res.body.data.items) {
      expect(item).toEqual(await getOrder(t, setup.clinic, item.medication_request_id));
    }
  });

  it('when status or patient_id is given, then only the matching orders are listed', async () => {
    const byStatus = await t.partner(setup.clinic.apiKey).get(`${LIST}?status=cancelled`);
    expect(byStatus.body.data.items.map((o: any) => o.medication_request_id)).toEqual([orders[2]]);
    const byPatient = await t.partner(setup.clinic.apiKey).get(`${LIST}?patient_id=${secondPatientId}`);
    expect(byPatient.body.data.items.map((o: any) => o.medication_request_id)).toEqual([orders[3]]);
    const both = await t.partner(setup.clinic.apiKey).get(`${LIST}?status=pending&patient_id=${setup.patientId}`);
    expect(both.body.data.items.map((o: any) => o.medication_request_id)).toEqual([orders[1]]);
  });

  it('when patient_id is another clinic\u2019s patient, then the page is empty', async () => {
    const res = await t.partner(setup.clinic.apiKey).get(`${LIST}?patient_id=${other.patientId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [], next_cursor: null });
  });

  it('when the orders are more than `limit`, then the pages hold every order once, newest first', async () => {
    const pages = await allPages(t, setup.clinic, `${LIST}?limit=3`);
    expect(pages.map((p) => p.length)).toEqual([3, 1]);
    expect(pages.flat().map((o) => o.medication_request_id)).toEqual([...orders].reverse());
  });

  it('when a query field is invalid, then 400 names it', async () => {
    for (const [query, field] of [
      ['status=lost', 'status'],
      ['patient_id=42', 'patient_id'],
      ['limit=0', 'limit'],
      ['cursor=bm9wZQ', 'cursor'],
      ['clinic_id=x', 'clinic_id'],
    ] as const) {
      await expectFieldRefused(t, setup.clinic, `${LIST}?${query}`, field);
    }
  });

  it('when a page is listed, then it takes at most six queries whatever its length (none per order)', async () => {
    let queries = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        queries += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const ctx = { ...t.ctx, db: t.ctx.db.withPlugin(counting) };
    const identity = { clinicId: setup.clinic.clinicId, apiKeyId: setup.clinic.apiKeyId };
    const countFor = async (limit: number) => {
      queries = 0;
      const page = await listOrders(ctx, identity, { limit }, partnerAuditContext(identity));
      return { queries, listed: page.items.length };
    };
    const one = await countFor(1);
    const four = await countFor(4);
    expect([one.listed, four.listed]).toEqual([1, 4]);
    // The page, then items, history, the items' fills (one query for the page), refill requests and
    // origin items: the last two only when needed.
    expect(one.queries).toBeLessThanOrEqual(6);
    expect(four.queries).toBeLessThanOrEqual(6);
  });

  it('when a page is listed, then each order on it is audited as read by the partner\u2019s key', async () => {
    // A key of its own, so that its rows are this test's.
    const key = await issueApiKey(t.ctx, setup.clinic.clinicId, null);
    const res = await t.partner(key.api_key).get(`${LIST}?limit=2`);
    const rows = (await auditRows(t.ctx)).filter((r) => r.actor_id === key.api_key_id);
    expect(rows.map((r) => [r.action, r.resource_type, r.resource_id, r.actor_type, r.actor_id, r.clinic_id]).sort()).toEqual(
      res.body.data.items
        .map((o: any) => [
          'read',
          'medication_request',
          o.medication_request_id,
          'partner',
          key.api_key_id,
          setup.clinic.clinicId,
        ])
        .sort(),
    );
  });
});
