import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { runChange } from '../../src/changes/run-change.js';
import { applyTransition } from '../../src/orders/order-transition.js';
import { findOrderUnscoped } from '../../src/orders/order.repository.js';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  outboxEventsOf,
  requestRefill,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const N = 20;

describe.each(DIALECTS)('simultaneous changes of one order on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  const historyTo = async (id: string, to: string) =>
    (
      await t.ctx.db
        .selectFrom('medication_request_status_history')
        .select('id')
        .where('medication_request_id', '=', id)
        .where('to_status', '=', to)
        .execute()
    ).length;

  it(`when ${N} identical transitions arrive at once, then exactly one succeeds and the others get 409`, async () => {
    const id = await createOrder(t, setup);
    const replies = await Promise.all(
      Array.from({ length: N }, () => t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'processing' })),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(N - 1);
    expect(await historyTo(id, 'processing')).toBe(1);
  });

  it(`when ${N} shipments of one order arrive at once, then exactly one is stored, with one event`, async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'processing');
    const replies = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        t.operator.post(`/api/admin/medication-requests/${id}/status`, {
          status: 'shipped',
          tracking_number: `79461234${String(i).padStart(4, '0')}`,
        }),
      ),
    );
    const winners = replies.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(N - 1);
    const stored = await findOrderUnscoped(t.ctx.db, id);
    expect(stored?.tracking_number).toBe(winners[0]?.body.data.tracking_number);
    expect(await historyTo(id, 'shipped')).toBe(1);
    expect((await outboxEventsOf(t, id)).filter((e) => e.type === 'order.fulfilled')).toHaveLength(1);
  });

  it('when cancellations and shipments race, then exactly one of them wins', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'processing');
    const replies = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        i % 2 === 0
          ? t.partner(setup.clinic.apiKey).post(`/api/external/medication-order/${id}/cancel`)
          : t.operator.post(`/api/admin/medication-requests/${id}/status`, {
              status: 'shipped',
              tracking_number: '794612349999',
            }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    const events = (await outboxEventsOf(t, id)).filter((e) => e.type !== 'order.created');
    expect(events).toHaveLength(1);
  });

  it('when the order changed after it was read, then the conditional update refuses the transition and changes nothing', async () => {
    const id = await createOrder(t, setup);
    const stale = await findOrderUnscoped(t.ctx.db, id);
    if (!stale) throw new Error('order missing');
    await advanceOrder(t, setup.clinic, id, 'processing');

    const attempt = runChange(t.ctx, null, async (change) =>
      applyTransition(change, await change.transaction(), new Date().toISOString(), stale, 'processing', 'operator'),
    );
    await expect(attempt).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof AppError && error.statusCode === 409 && error.message.includes('from processing to processing'),
    );
    expect(await historyTo(id, 'processing')).toBe(1);
  });

  it(`when ${N} refills of one order arrive at once, then exactly one is accepted`, async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'shipped');
    const replies = await Promise.all(
      Array.from({ length: N }, () =>
        t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: id }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = replies.filter((r) => r.status === 400);
    expect(refused).toHaveLength(N - 1);
    expect(new Set(refused.map((r) => r.body.error.message))).toEqual(new Set(['Refill request already exists']));
    const refillOrders = await t.ctx.db.selectFrom('medication_requests').select('id').where('refill_of', '=', id).execute();
    expect(refillOrders).toHaveLength(1);
    const origin = await t.ctx.db
      .selectFrom('medication_items')
      .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
      .select('medication_items.refills_used')
      .where('prescriptions.medication_request_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(origin.refills_used).toBe(1);
  });

  it('when refills of two orders of one chain arrive at once with one refill left, then only one is accepted', async () => {
    const id = await createOrder(t, setup); // 2 refills authorized
    await advanceOrder(t, setup.clinic, id, 'shipped');
    const first = await requestRefill(t, setup.clinic, id);
    await advanceOrder(t, setup.clinic, first.medication_order_id, 'shipped');
    const replies = await Promise.all(
      [id, first.medication_order_id, id, first.medication_order_id].map((target) =>
        t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: target }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    const chain = await t.ctx.db.selectFrom('medication_requests').select('id').where('chain_origin_id', '=', id).execute();
    expect(chain).toHaveLength(2);
  });
});
