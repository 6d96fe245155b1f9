import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemBody } from '../helpers/factories.js';
import { patientBody } from '../helpers/fixtures.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import {
  launchChromium,
  navigate,
  openPage,
  pageReady,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

/** Issue 21, item 1: the pharmacist's verification queue, the order page and its packing slip. */
const PHARMACIST = { email: 'parker@pharmacy.example', name: 'Parker Pharmacist', password: 'pharmacist passphrase 2026' };
const TRACKING_NUMBER = '794612345678';
const DIRECTIONS = 'Inject 0.25 mg subcutaneously once weekly';

describe('the verification queue: a pharmacist finds an order, verifies it on one page, prints its slip and ships it', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let orderId = '';
  let otherOrderId = '';
  let clinicId = '';
  let patientId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    dataOf(
      await call(server, 'POST', '/api/admin/staff', { operator: true, body: { ...PHARMACIST, role: 'pharmacist' } }),
      'create pharmacist',
    );
    const riverside = await createOrderingPartner(server, 'Riverside Family Clinic');
    clinicId = riverside.clinic.clinicId;
    patientId = riverside.patientId;
    const alan: string = dataOf(
      await call(server, 'POST', '/api/external/patient', {
        apiKey: riverside.clinic.apiKey,
        body: patientBody(clinicId, { first_name: 'Alan', last_name: 'Turing', practitioner_id: riverside.practitionerId }),
      }),
      'create patient',
    ).patient_id;
    orderId = await placeOrder(server, riverside.clinic.apiKey, riverside, {
      is_refrigerated: true,
      medication_requests: [itemBody({ reason_for_compounding: 'Dye-free formulation', notes: 'Leave at the front desk' })],
    });
    otherOrderId = await placeOrder(server, riverside.clinic.apiKey, { ...riverside, patientId: alan });
    page = await openPage(browser, server);
    await signIn(page, PHARMACIST);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  /** Searches, and waits for the queue's answer to that search (the table shown before may still be there a moment). */
  const search = async (text: string) => {
    await page.getByLabel('Search orders').fill(text);
    const answered = page.waitForResponse(
      (response) =>
        response.url().includes('/api/admin/medication-requests?') &&
        new URL(response.url()).searchParams.get('q')?.toLowerCase() === text.toLowerCase(),
    );
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await answered;
    await page.locator('.loading').first().waitFor({ state: 'detached' });
  };
  const queueRows = () =>
    page
      .getByRole('table')
      .getByRole('row')
      .filter({ has: page.getByRole('cell') });
  const statusPanel = () => page.getByRole('region', { name: 'Status' });

  it('when the pharmacist searches by a patient\u2019s name, then the queue lists that patient\u2019s order with date of birth, medication and prescriber, kept in the address', async () => {
    await navigate(page, 'Orders');
    await expect.poll(() => queueRows().count()).toBe(2);
    await search('hopper');
    await page.waitForURL(/[?&]q=hopper\b/);
    await expect.poll(() => queueRows().count()).toBe(1);
    const row = queueRows().first();
    await row.getByRole('link', { name: 'Grace Hopper' }).waitFor();
    await row.getByText('Born Dec 9, 1980').waitFor();
    await row.getByText('Semaglutide 0.25mg × 1').waitFor();
    await row.getByText('NPI 1234567893').waitFor();
    await row.getByText('Riverside Family Clinic').waitFor();
    await row.getByText(orderId.slice(-8)).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'queue-search-name');

    // Back from elsewhere, the search is still there.
    await page.reload();
    await pageReady(page, 'Orders');
    expect(await page.getByLabel('Search orders').inputValue()).toBe('hopper');
    await expect.poll(() => queueRows().count()).toBe(1);
  });

  it('when the pharmacist searches by 8 characters of an order id, then the order is listed, never a validation error', async () => {
    await navigate(page, 'Orders');
    await search(orderId.slice(-8));
    await expect.poll(() => queueRows().count()).toBe(1);
    await queueRows().first().getByRole('link', { name: 'Grace Hopper' }).waitFor();
    // Its first 8 characters (its creation time): both orders of this test's minute, and no error.
    await search(orderId.slice(0, 8).toUpperCase());
    expect(await page.getByRole('alert').count()).toBe(0);
    await queueRows()
      .filter({ hasText: orderId.slice(-8) })
      .waitFor();
    await expect
      .poll(() =>
        queueRows()
          .filter({ hasText: otherOrderId.slice(-8) })
          .count(),
      )
      .toBe(otherOrderId.startsWith(orderId.slice(0, 8)) ? 1 : 0);
  });

  it('when the pharmacist opens the order, then one page shows the prescriber\u2019s NPI, the patient\u2019s date of birth and phone, and each item in full', async () => {
    await navigate(page, 'Orders');
    await search(orderId.slice(-8));
    await queueRows().first().getByRole('link', { name: 'Grace Hopper' }).click();
    await statusPanel().waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });

    const patient = page.getByRole('region', { name: 'Patient' });
    await patient.getByText('Dec 9, 1980').waitFor();
    await patient.getByText('555-555-0101').waitFor();
    await patient.getByText('2 Elm St').waitFor();
    const prescriber = page.getByRole('region', { name: 'Prescriber' });
    await prescriber.getByText('Ada Lovelace').waitFor();
    await prescriber.getByText('1234567893').waitFor();
    const items = page.getByRole('region', { name: 'Items' });
    await items.getByText(DIRECTIONS).waitFor();
    await items.getByText('Dye-free formulation').waitFor();
    await items.getByText('Leave at the front desk').waitFor();
    await page.getByRole('region', { name: 'Shipping' }).getByText('Yes: keep cold').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'order-verify');
  });

  it('when the order page is printed, then only the packing slip shows: the patient, the address, the items and the cold notice, no internal id', async () => {
    await page.getByRole('button', { name: 'Print packing slip' }).waitFor();
    await page.emulateMedia({ media: 'print' });
    try {
      await page.getByRole('heading', { name: 'Packing slip' }).waitFor();
      const printed = await page.evaluate(() => document.body.innerText);
      expect(printed).toContain('Grace Hopper');
      expect(printed).toContain('2 Elm St');
      expect(printed).toContain(DIRECTIONS);
      expect(printed).toMatch(/Refrigerated: keep cold/);
      for (const id of [orderId, orderId.slice(-8), clinicId, patientId]) expect(printed).not.toContain(id);
      expect(printed).not.toContain('1234567893');
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Print packing slip' }).isVisible()).toBe(false);
      await screenshot(page, 'packing-slip');
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
    expect(await page.getByRole('heading', { name: 'Packing slip' }).count()).toBe(0);
  });

  it('when the pharmacist ships the order, then it is shipped, its history names the pharmacist, and the queue finds it by its tracking number', async () => {
    await statusPanel().getByRole('button', { name: 'Start processing', exact: true }).click();
    await statusPanel().getByText('processing', { exact: true }).waitFor();
    await statusPanel().getByLabel('Tracking number').fill(TRACKING_NUMBER);
    await statusPanel().getByRole('button', { name: 'Mark shipped', exact: true }).click();
    await statusPanel().getByText('shipped', { exact: true }).waitFor();
    const shippedStep = page.getByRole('row').filter({ hasText: /^processing\s*shipped/ });
    await shippedStep.waitFor();
    // The history names who shipped it: the pharmacist signed in, not "operator".
    await shippedStep.getByText(PHARMACIST.name).waitFor();
    // And so does the record the server kept, read again.
    await page.reload();
    await statusPanel().waitFor();
    await page
      .getByRole('row')
      .filter({ hasText: /^processing\s*shipped/ })
      .getByText(PHARMACIST.name)
      .waitFor();

    await navigate(page, 'Orders');
    await search(TRACKING_NUMBER.slice(4, 12));
    await expect.poll(() => queueRows().count()).toBe(1);
    await queueRows().first().getByText(TRACKING_NUMBER).waitFor();
    await queueRows().first().getByText('shipped', { exact: true }).waitFor();
  });
});
