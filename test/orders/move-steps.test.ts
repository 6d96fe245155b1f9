import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChange } from '../../src/changes/run-change.js';
import { applyTransition } from '../../src/orders/order-transition.js';
import { findOrderUnscoped } from '../../src/orders/order.repository.js';
import { advanceOrder, createOrder, createOrderSetup, getOrder, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * The order's core moves an order; what the rooms do in a move (the fill check and the first
 * shipment of `shipped`) comes with the move as its steps (src/orders/order-transition.ts MoveSteps,
 * given by src/fulfillment/order-move.ts). A move to `shipped` without them would skip the
 * production's fill check: the core refuses it as a programming error.
 */
describe.each(DIALECTS)('the rooms\u2019 steps of a move on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when a move to shipped comes without the rooms\u2019 steps, then the core refuses it and nothing changes', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'processing');
    const order = await findOrderUnscoped(t.ctx.db, id);
    if (!order) throw new Error('order missing');
    const attempt = runChange(t.ctx, null, async (change) =>
      applyTransition(change, await change.transaction(), new Date().toISOString(), order, 'shipped', 'operator', '794612349999'),
    );
    await expect(attempt).rejects.toThrow(/needs its tracking number and the rooms' steps/);
    expect(await getOrder(t, setup.clinic, id)).toMatchObject({ status: 'processing', shipments: [] });
  });

  it('when the sandbox ships an order, then the rooms\u2019 steps run with the move: its items filled and its first shipment', async () => {
    const id = await createOrder(t, setup);
    const shipped = await advanceOrder(t, setup.clinic, id, 'shipped');
    expect(shipped.shipments).toHaveLength(1);
    expect(shipped.shipments[0]).toMatchObject({ tracking_number: shipped.tracking_number, status: 'in_transit' });
    expect(shipped.medication_requests[0].fill).toMatchObject({ lot_number: expect.stringMatching(/^DEV-/) });
  });
});
