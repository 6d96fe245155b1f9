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

/** Issue 21, item 1 (issue 30, item 9): the pharmacist's verification queue, the order page and its label. */
const PHARMACIST = { email: 'parker@pharmacy.example', name: 'Parker Pharmacist', password: 'pharmacist passphrase 2026' };
const TRACKING_NUMBER = '794612345678';
const DIRECTIONS = 'Inject 0.25 mg subcutaneously once weekly';
/** The pharmacy the label names (docs/configuration.md). */
const PHARMACY_SETTINGS = {
  PHARMACY_NAME: 'Riverside Compounding Pharmacy',
  PHARMACY_ADDRESS_LINE1: '12 Mill Road',
  PHARMACY_CITY: 'Albany',
  PHARMACY_STATE: 'NY',
  PHARMACY_POSTAL_CODE: '12207',
  PHARMACY_PHONE: '518-555-0100',
};

describe('the verification queue: a pharmacist finds an order, verifies it on one page, prints its slip and ships it', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let orderId = '';
  let otherOrderId = '';
  let clinicId = '';
  let patientId = '';
  let apiKey = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(PHARMACY_SETTINGS), launchChromium()]);
    dataOf(
      await call(server, 'POST', '/api/admin/staff', { operator: true, body: { ...PHARMACIST, role: 'pharmacist' } }),
      'create pharmacist',
    );
    const riverside = await createOrderingPartner(server, 'Riverside Family Clinic');
    clinicId = riverside.clinic.clinicId;
    patientId = riverside.patientId;
    apiKey = riverside.clinic.apiKey;
    const alan: string = dataOf(
      await call(server, 'POST', '/api/external/patient', {
        apiKey: riverside.clinic.apiKey,
        body: patientBody(clinicId, { first_name: 'Alan', last_name: 'Turing', practitioner_id: riverside.practitionerId }),
      }),
      'create patient',
    ).patient_id;
    // Its Semaglutide has a formula, shown beside the item.
    const formulary: { medication_id: string; name: string }[] = dataOf(
      await call(server, 'GET', `/api/admin/clinics/${clinicId}/medications`, { operator: true }),
      'formulary',
    ).medications;
    const semaglutide = formulary.find((entry) => entry.name === 'Semaglutide');
    if (!semaglutide) throw new Error('the ordering partner\u2019s formulary has Semaglutide');
    dataOf(
      await call(server, 'PATCH', `/api/admin/clinics/${clinicId}/medications/${semaglutide.medication_id}`, {
        operator: true,
        body: {
          strength: '2.5 mg/mL',
          dosage_form: 'injectable solution',
          ingredients: [
            { name: 'semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true },
            { name: 'bacteriostatic water', strength: 'q.s.', unit: 'mL', active: false },
          ],
          preparation: 'sterile',
          bud_category: 'aqueous_preserved',
          storage: 'refrigerated',
          // USP <797> Category 2, aseptic from sterile components, not tested: at most 10 days refrigerated.
          sterile_condition: { category: 2, preparation: 'aseptic', nonsterile_component: false, sterility_tested: false },
          beyond_use_days: 10,
        },
      }),
      'formula',
    );
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
    // The formula beside the item, and the formulary's strength beside the ordered dose.
    await items.getByText('Formulary: 2.5 mg/mL, injectable solution').waitFor();
    const formula = items.getByRole('group', { name: 'Formula of Semaglutide' });
    await formula.getByText('semaglutide sodium 2.5 mg/mL').waitFor();
    await formula.getByText('Sterile').waitFor();
    await formula.getByText('Refrigerated').waitFor();
    await formula.getByText('Not controlled').waitFor();
    await page.getByRole('region', { name: 'Patient' }).getByText('Sex').waitFor();
    await page.getByRole('region', { name: 'Shipping' }).getByText('Yes: keep cold').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'order-verify');
  });

  it('when the order page is printed, then only the label shows: the pharmacy, the patient, the order\u2019s reference and barcode, the items with storage, lot and beyond-use date, the cold notice', async () => {
    await page.getByRole('button', { name: 'Print label' }).waitFor();
    await page.emulateMedia({ media: 'print' });
    try {
      await page.getByRole('heading', { name: PHARMACY_SETTINGS.PHARMACY_NAME }).waitFor();
      const printed = await page.evaluate(() => document.body.innerText);
      expect(printed).toContain('12 Mill Road');
      expect(printed).toContain('Albany, NY 12207');
      expect(printed).toContain('518-555-0100');
      expect(printed).toContain('Grace Hopper');
      expect(printed).toContain('2 Elm St');
      expect(printed).toContain(DIRECTIONS);
      expect(printed).toMatch(/Refrigerated: keep cold/);
      expect(printed).toContain(orderId.slice(-8));
      expect(printed).toMatch(/Lot/);
      expect(printed).toMatch(/Beyond-use date/);
      expect(printed).toContain('Keep refrigerated');
      // The barcode: a Code 128 SVG of the order id, drawn (bars), and nothing else's id.
      const barcode = page.getByRole('img', { name: `Barcode of order ${orderId}` });
      expect(await barcode.isVisible()).toBe(true);
      expect(await barcode.evaluate((svg) => svg.tagName.toLowerCase())).toBe('svg');
      expect(await barcode.locator('rect').count()).toBeGreaterThan(20);
      for (const id of [clinicId, patientId]) expect(printed).not.toContain(id);
      expect(printed).not.toContain('1234567893');
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Print label' }).isVisible()).toBe(false);
      await screenshot(page, 'order-label');
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
    expect(await page.getByRole('heading', { name: PHARMACY_SETTINGS.PHARMACY_NAME }).isVisible()).toBe(false);
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

  it('when the queue holds a refill, a refrigerated order and a held one, then each row is marked so, with when it came in', async () => {
    const refill: string = dataOf(
      await call(server, 'POST', '/api/external/refill-request', { apiKey, body: { medication_request_id: orderId } }),
      'request refill',
    ).medication_order_id;
    dataOf(
      await call(server, 'POST', `/api/admin/medication-requests/${otherOrderId}/hold`, {
        operator: true,
        body: { reason_code: 'out_of_stock', message: 'Waiting for stock' },
      }),
      'hold order',
    );
    await navigate(page, 'Orders');
    const rowOf = (id: string) => queueRows().filter({ hasText: id.slice(-8) });
    await expect.poll(() => queueRows().count()).toBe(3);
    await rowOf(refill).getByText('Refill', { exact: true }).waitFor();
    await rowOf(orderId).getByText('Refrigerated', { exact: true }).waitFor();
    await rowOf(otherOrderId)
      .getByText(/^Held: .*waiting on the pharmacy/)
      .waitFor();
    expect(await rowOf(otherOrderId).getByText('Refill', { exact: true }).count()).toBe(0);
    expect(await rowOf(otherOrderId).getByText('Refrigerated', { exact: true }).count()).toBe(0);
    expect(await rowOf(orderId).getByText(/^Held/).count()).toBe(0);
    await page.getByRole('columnheader', { name: 'Came in' }).waitFor();
    for (const id of [refill, orderId, otherOrderId]) expect(await rowOf(id).locator('time').count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'queue-marks');
  });
});
