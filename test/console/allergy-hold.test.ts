import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import type { OrderSetup } from '../helpers/factories.js';
import {
  launchChromium,
  openOrderFromQueue,
  openPage,
  partnerOrder,
  placeOrder,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const PHARMACIST = {
  email: 'ines.pharmacist@pharmacy.example',
  name: 'Ines Pharmacist',
  password: 'pharmacist passphrase 2026',
};
const LDN = 'Low-dose naltrexone 4.5 mg';

/**
 * An order held at intake for an allergy (issue 30, item 6), as the pharmacist finds it: the order's
 * page shows the patient's allergies beside the items and the conflict in the hold; she overrides it
 * with her reason (issue 39).
 */
describe('an allergy conflict in the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let partner: OrderSetup;
  let orderId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    dataOf(
      await call(server, 'POST', '/api/admin/staff', { operator: true, body: { ...PHARMACIST, role: 'pharmacist' } }),
      'create pharmacist',
    );
    partner = await createOrderingPartner(server, 'Lakeside Clinic');
    dataOf(
      await call(server, 'POST', `/api/admin/clinics/${partner.clinic.clinicId}/medications`, {
        operator: true,
        body: {
          name: LDN,
          ingredients: [{ name: 'Naltrexone Hydrochloride', strength: '4.5', unit: 'mg', active: true }],
          preparation: 'non_sterile',
          bud_category: 'solid',
          storage: 'room',
        },
      }),
      'add LDN',
    );
    dataOf(
      await call(server, 'PUT', `/api/external/patient/${partner.patientId}/allergies`, {
        apiKey: partner.clinic.apiKey,
        body: { allergies: [{ substance: 'Naltrexone', reaction: 'hives', severity: 'severe' }] },
      }),
      'record allergies',
    );
    orderId = await placeOrder(server, partner.clinic.apiKey, partner, {
      medication_requests: [{ medication: LDN, dose: '4.5mg', quantity: 30, direction: 'One capsule at bedtime' }],
    });
    page = await openPage(browser, server);
    await signIn(page, PHARMACIST);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  it('when the pharmacist opens the held order, then she sees the allergies and the conflict, and overrides it with her reason', async () => {
    await openOrderFromQueue(page, orderId);
    const allergies = page.getByRole('region', { name: 'Allergies', exact: true });
    expect(await allergies.textContent()).toContain('Naltrexone: hives');
    expect(await allergies.textContent()).toContain('severe');
    const hold = page.getByRole('region', { name: /^On hold: / });
    expect(await hold.textContent()).toContain('Naltrexone Hydrochloride');
    expect(await hold.textContent()).toContain('allergy to Naltrexone');

    // A clinical hold: the pharmacist overrides it with her reason (issue 39).
    await hold.getByLabel(/Override reason/).fill('Prescriber confirmed; the reaction was mild.');
    await hold.getByRole('button', { name: 'Override and resolve' }).click();
    await page.getByRole('region', { name: 'Status' }).getByText('pending', { exact: true }).waitFor();
    expect(await partnerOrder(server, partner.clinic.apiKey, orderId)).toMatchObject({ status: 'pending', hold: null });
  });
});
