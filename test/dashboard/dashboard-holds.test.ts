import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, expectOk, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/** The dashboard's holds (issue 29: "the dashboard counts holds by reason"). */
describe.each(DIALECTS)('the dashboard\u2019s holds on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse('2030-04-17T12:00:00.000Z'));
  let shop: OrderSetup;
  const orders: string[] = [];

  const hold = async (orderId: string, body: Record<string, string>) =>
    expectOk(await t.operator.post(`/api/admin/medication-requests/${orderId}/hold`, body), `hold ${body.reason_code ?? ''}`);
  const dashboard = async () => {
    const res = await t.operator.get('/api/admin/dashboard');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  const countsOf = (holds: { by_reason: { reason_code: string; count: number }[] }) =>
    Object.fromEntries(holds.by_reason.filter((reason) => reason.count > 0).map((reason) => [reason.reason_code, reason.count]));

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    shop = await createOrderSetup(t, { clinicName: 'Riverside Family Clinic' });
    for (let i = 0; i < 5; i++) orders.push(await createOrder(t, shop));
    const [a = '', b = '', c = '', d = ''] = orders;
    await hold(a, { reason_code: 'prescription_clarification', message: 'Which strength?' });
    await hold(b, { reason_code: 'prescription_clarification', message: 'Which strength?' });
    await hold(c, { reason_code: 'out_of_stock', message: 'Back Thursday.' });
    await hold(d, { reason_code: 'other', waiting_on: 'pharmacy', message: 'Checking with the compounding lab.' });
    expectOk(
      await t.partner(shop.clinic.apiKey).post(`/api/external/medication-order/${a}/hold-response`, { message: '0.5 mg.' }),
      'answer',
    );
  });
  afterAll(async () => t.close());

  it('when orders are on hold, then the dashboard counts them by reason and by whom they wait on', async () => {
    const { holds } = await dashboard();

    expect(holds).toMatchObject({ total: 4, waiting_on_partner: 1, waiting_on_pharmacy: 3 });
    expect(countsOf(holds)).toEqual({ prescription_clarification: 2, out_of_stock: 1, other: 1 });
  });

  it('when the dashboard is read, then every reason of the catalog is listed in its order, with its text', async () => {
    const { holds } = await dashboard();
    const catalog = (await t.operator.get('/api/admin/hold-reasons')).body.data as { code: string; reason: string }[];

    expect(holds.by_reason.map((reason: { reason_code: string; reason: string }) => [reason.reason_code, reason.reason])).toEqual(
      catalog.map((reason) => [reason.code, reason.reason]),
    );
  });

  it('when the dashboard is read, then today\u2019s orders are counted on hold by their status now', async () => {
    const { orders_per_day } = await dashboard();

    expect(orders_per_day[29]).toMatchObject({ date: '2030-04-17', pending: 1, on_hold: 4 });
  });

  it('when a hold is resumed, then it leaves the counts', async () => {
    expectOk(await t.operator.post(`/api/admin/medication-requests/${orders[2] ?? ''}/resume`, {}), 'resume');
    const { holds } = await dashboard();

    expect(holds).toMatchObject({ total: 3, waiting_on_partner: 1, waiting_on_pharmacy: 2 });
    expect(countsOf(holds)).toEqual({ prescription_clarification: 2, other: 1 });
  });
});
