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

const PHARMACIST = { email: 'omar.pharmacist@pharmacy.example', name: 'Omar Pharmacist', password: 'pharmacist passphrase 2026' };
const ADMIN = { email: 'ada.admin@pharmacy.example', name: 'Ada Admin', password: 'administrator passphrase 2026' };
const LDN = 'Low-dose naltrexone 4.5 mg';
const ITEM = { medication: LDN, dose: '4.5mg', quantity: 30, direction: 'One capsule at bedtime', days_supply: 30 };
const OVERRIDE = 'Titration step confirmed with the prescriber; the first bottle is stopped.';

/**
 * A duplicate-therapy hold in the console (issue 39, items 1 and 2): the order page lists every open
 * hold; an admin sees why they cannot resolve the clinical one, and the pharmacist overrides it with
 * her reason, after the address hold beside it was resolved.
 */
describe('a clinical hold overridden in the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let partner: OrderSetup;
  let orderId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    for (const [who, role] of [
      [PHARMACIST, 'pharmacist'],
      [ADMIN, 'admin'],
    ] as const) {
      dataOf(await call(server, 'POST', '/api/admin/staff', { operator: true, body: { ...who, role } }), `create ${role}`);
    }
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
    await placeOrder(server, partner.clinic.apiKey, partner, { medication_requests: [ITEM] });
    orderId = await placeOrder(server, partner.clinic.apiKey, partner, { medication_requests: [ITEM] });
    dataOf(
      await call(server, 'POST', `/api/admin/medication-requests/${orderId}/hold`, {
        operator: true,
        body: { reason_code: 'out_of_stock', message: 'Capsules back on Thursday.' },
      }),
      'second hold',
    );
    page = await openPage(browser, server);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  it('when an admin opens the order, then every open hold is listed and the clinical one says only a pharmacist can override it', async () => {
    await signIn(page, ADMIN);
    await openOrderFromQueue(page, orderId);
    const hold = page.getByRole('region', { name: /^On hold: / });
    expect(await hold.locator('li.open-hold').count()).toBe(2);
    const clinical = hold.locator('li[data-hold="duplicate_therapy"]');
    expect(await clinical.textContent()).toContain('Clinical check');
    expect(await clinical.textContent()).toContain('is already in the patient');
    expect(await clinical.getByRole('note').textContent()).toContain(
      'Only a pharmacist signed in as themselves can override a clinical hold, with a reason: you are signed in as admin',
    );
    expect(await clinical.getByRole('button', { name: 'Override and resolve' }).count()).toBe(0);
    // The other hold is the admin's to resolve: the order stays on hold for the clinical one.
    await hold.locator('li[data-hold="out_of_stock"]').getByRole('button', { name: 'Resolve' }).click();
    await hold.getByText('The order stays on hold for its other holds').waitFor();
    expect(await hold.locator('li.open-hold').count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('when the pharmacist overrides the duplicate_therapy hold with a reason, then the order resumes and the history shows her reason', async () => {
    await signIn(page, PHARMACIST);
    await openOrderFromQueue(page, orderId);
    const hold = page.getByRole('region', { name: /^On hold: / });
    const clinical = hold.locator('li[data-hold="duplicate_therapy"]');
    await clinical.getByLabel(/Override reason/).fill(OVERRIDE);
    await clinical.getByRole('button', { name: 'Override and resolve' }).click();
    await page.getByRole('region', { name: 'Status' }).getByText('pending', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Hold history' }).getByText(OVERRIDE).waitFor();
    expect(await partnerOrder(server, partner.clinic.apiKey, orderId)).toMatchObject({
      status: 'pending',
      hold: null,
      holds: [],
    });
  });
});
