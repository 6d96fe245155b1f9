import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteShippingService } from '../../src/shipping/shipping.service.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('quoteShippingService (used by orders) on %s', (dialect) => {
  let t: TestApp;
  let paying: TestClinic;
  let free: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    paying = await t.createClinic();
    free = await t.createClinic({ freeShipping: true });
  });
  afterAll(async () => t.close());

  it('when the state has no price of its own, then the quote is the base price', async () => {
    expect(await quoteShippingService(t.ctx.db, paying.clinicId, 'fedex', 'fedex_ground', 'CA')).toEqual({
      carrierId: 'fedex',
      carrierName: 'FedEx',
      serviceId: 'fedex_ground',
      serviceName: 'FedEx Ground®',
      originalCents: 3244,
      totalCents: 3244,
      freeShipmentType: null,
    });
  });

  it('when the state has its own price, then the quote uses it', async () => {
    const quote = await quoteShippingService(t.ctx.db, paying.clinicId, 'fedex', 'fedex_ground', 'AK');
    expect(quote).toMatchObject({ originalCents: 5899, totalCents: 5899 });
  });

  it('when the clinic has free shipping, then the total is 0 and the type clinic_specific', async () => {
    const quote = await quoteShippingService(t.ctx.db, free.clinicId, 'ups', 'ups_ground', 'HI');
    expect(quote).toMatchObject({ originalCents: 5499, totalCents: 0, freeShipmentType: 'clinic_specific' });
  });

  it('when quoted inside a transaction, then it reads through the transaction', async () => {
    const quote = await t.ctx.db
      .transaction()
      .execute((trx) => quoteShippingService(trx, paying.clinicId, 'usps', 'usps_priority', 'NY'));
    expect(quote).toMatchObject({ totalCents: 1250 });
  });

  it('when the carrier is unknown, then it says the carrier is unknown', async () => {
    expect(await quoteShippingService(t.ctx.db, paying.clinicId, 'dhl', 'fedex_ground', 'CA')).toEqual({ unknown: 'carrier' });
  });

  it('when the service belongs to another carrier, then it says the service is unknown', async () => {
    expect(await quoteShippingService(t.ctx.db, paying.clinicId, 'ups', 'fedex_ground', 'CA')).toEqual({ unknown: 'service' });
  });

  it('when the clinic is unknown, then Clinic not found', async () => {
    await expect(quoteShippingService(t.ctx.db, randomUUID(), 'fedex', 'fedex_ground', 'CA')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Clinic not found',
    });
  });
});
