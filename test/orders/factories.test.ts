import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFill,
  createFormula,
  createHold,
  createOrder,
  createOrderSetup,
  createShipment,
  createShippedOrder,
  itemBody,
  ownPatient,
  setOrderStatus,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** The test factories (test/helpers/factories.ts) make what they say, as the API answers it. */
describe.each(DIALECTS)('the test factories on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
    await createFormula(t, setup.clinic, 'Progesterone Cream');
  });
  afterAll(async () => t.close());

  it('when a formula is created, then the entry carries FORMULA with the fields given', async () => {
    const entry = await createFormula(t, setup.clinic, 'Estradiol Cream', { storage: 'refrigerated' });
    expect(entry).toMatchObject({ name: 'Estradiol Cream', preparation: 'non_sterile', storage: 'refrigerated' });
    expect(entry.ingredients?.map((each) => each.name)).toEqual(['Progesterone micronized', 'Cream base']);
  });

  it('when an order of a formula is filled, then each item has its lot', async () => {
    const id = await createOrder(t, await ownPatient(t, setup), {
      medication_requests: [itemBody({ medication: 'Progesterone Cream', dose: '100mg' })],
    });
    const processing = await setOrderStatus(t, id, { status: 'processing' });
    const filled = await createFill(
      t,
      id,
      processing.medication_requests.map((item) => ({ item_id: item.id })),
    );
    expect(filled.medication_requests.map((item) => item.fill?.lot_number)).toEqual(['LOT-1']);
  });

  it('when an order is held, then it is on hold waiting on the partner', async () => {
    const held = await createHold(t, await createOrder(t, await ownPatient(t, setup)));
    expect(held).toMatchObject({ status: 'on_hold', hold: { reason_code: 'prescription_clarification', waiting_on: 'partner' } });
  });

  it('when a shipped order is made and another package added, then it is shipped with two shipments', async () => {
    const shipped = await createShippedOrder(t, setup, { fill: true });
    expect(shipped).toMatchObject({ status: 'shipped', tracking_number: '123456789012' });
    const twice = await createShipment(t, shipped.medication_request_id);
    expect(twice.shipments.map((each) => each.tracking_number)).toEqual(['123456789012', '123456789013']);
  });
});
