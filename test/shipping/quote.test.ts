import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkShipping } from '../../src/orders/order-rules.js';
import { findPartiesAndPricedShipping } from '../../src/orders/order-parties.repository.js';
import type { DbOrTrx } from '../../src/db/database.js';
import { createPatient, createPractitioner } from '../helpers/factories.js';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('an order’s shipping quote (findPartiesAndPricedShipping, then checkShipping) on %s', (dialect) => {
  let t: TestApp;
  let paying: TestClinic;
  let free: TestClinic;
  /** Per clinic: a practitioner and a patient in each state the tests ship to. */
  const parties = new Map<string, { practitionerId: string; patients: Record<string, string> }>();

  async function addParties(clinic: TestClinic, states: string[]): Promise<void> {
    const practitionerId = await createPractitioner(t, clinic);
    const patients: Record<string, string> = {};
    for (const state of states) {
      const [address] = patientBody(clinic.clinicId).addresses as Record<string, unknown>[];
      const inState = { ...address, state };
      patients[state] = await createPatient(t, clinic, { overrides: { addresses: [inState] } });
    }
    parties.set(clinic.clinicId, { practitionerId, patients });
  }

  /** What an order of `clinic` shipped to its patient in `state` would pay. */
  async function quote(db: DbOrTrx, clinicId: string, carrierId: string, serviceId: string, state: string) {
    const known = parties.get(clinicId);
    const found = await findPartiesAndPricedShipping(db, clinicId, {
      patientId: known?.patients[state] ?? randomUUID(),
      practitionerId: known?.practitionerId ?? randomUUID(),
      carrierId,
      serviceId,
    });
    if (!found?.patient) return found;
    return checkShipping(found.shipping, found.patient, carrierId, serviceId);
  }

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    paying = await t.createClinic();
    free = await t.createClinic({ freeShipping: true });
    await addParties(paying, ['CA', 'AK', 'NY']);
    await addParties(free, ['HI']);
  });
  afterAll(async () => t.close());

  it('when the state has no price of its own, then the quote is the base price', async () => {
    expect(await quote(t.ctx.db, paying.clinicId, 'fedex', 'fedex_ground', 'CA')).toEqual({
      carrierId: 'fedex',
      carrierName: 'FedEx',
      serviceId: 'fedex_ground',
      serviceName: 'FedEx Ground®',
      originalCents: 3244,
      totalCents: 3244,
      freeShipmentType: null,
      coldChainEligible: false,
    });
  });

  it('when the state has its own price, then the quote uses it', async () => {
    expect(await quote(t.ctx.db, paying.clinicId, 'fedex', 'fedex_ground', 'AK')).toMatchObject({
      originalCents: 5899,
      totalCents: 5899,
    });
  });

  it('when the clinic has free shipping, then the total is 0 and the type clinic_specific', async () => {
    expect(await quote(t.ctx.db, free.clinicId, 'ups', 'ups_ground', 'HI')).toMatchObject({
      originalCents: 5499,
      totalCents: 0,
      freeShipmentType: 'clinic_specific',
    });
  });

  it('when quoted inside a transaction, then it reads through the transaction', async () => {
    const result = await t.ctx.db.transaction().execute((trx) => quote(trx, paying.clinicId, 'usps', 'usps_priority', 'NY'));
    expect(result).toMatchObject({ totalCents: 1250 });
  });

  it('when the carrier is unknown, then the problem names carrier_id', async () => {
    expect(await quote(t.ctx.db, paying.clinicId, 'dhl', 'fedex_ground', 'CA')).toMatchObject({
      message: 'Unknown carrier dhl',
      details: { carrier_id: expect.any(String) },
    });
  });

  it('when the service belongs to another carrier, then the problem names service_id', async () => {
    expect(await quote(t.ctx.db, paying.clinicId, 'ups', 'fedex_ground', 'CA')).toMatchObject({
      message: 'Carrier ups has no service fedex_ground',
      details: { service_id: expect.any(String) },
    });
  });

  it('when the clinic is unknown, then nothing is found', async () => {
    expect(await quote(t.ctx.db, randomUUID(), 'fedex', 'fedex_ground', 'CA')).toBeUndefined();
  });

  it('when the patient is another clinic’s, then the patient is absent', async () => {
    const other = parties.get(free.clinicId)!.patients.HI!;
    const found = await findPartiesAndPricedShipping(t.ctx.db, paying.clinicId, {
      patientId: other,
      practitionerId: parties.get(paying.clinicId)!.practitionerId,
      carrierId: 'ups',
      serviceId: 'ups_ground',
    });
    expect(found).toMatchObject({ patient: null, practitioner: { id: expect.any(String) } });
  });
});
