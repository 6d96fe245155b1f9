import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemBody, type OrderSetup } from '../helpers/factories.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, createPractitionerAndPatient, dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import {
  launchChromium,
  navigate,
  openOrderFromQueue,
  openPage,
  placeOrder,
  screenshot,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const PHARMACIST = {
  email: 'gil.pharmacist@pharmacy.example',
  name: 'Gil Pharmacist',
  password: 'pharmacist passphrase 2026',
};
/** A non-aqueous cream dispensed in grams: 90 days (USP <795>) unless an ingredient lot expires first. */
const CREAM = {
  name: 'Estriol Cream',
  dispense_unit: 'g',
  ingredients: [
    { name: 'Estriol', strength: '1', unit: 'mg/g', active: true },
    { name: 'Cream base', strength: '1', unit: 'g', active: false },
  ],
  preparation: 'non_sterile',
  bud_category: 'non_aqueous',
  storage: 'room',
};

/** A YYYY-MM-DD `days` after today (UTC), for an ingredient lot that expires before the 90 days. */
const inDays = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The console as issue 39 (item 11) found it, fixed: codes written as labels, notices that go with
 * the next action, Cancel only where the server allows it, quantities with their unit, a beyond-use
 * date capped by an ingredient lot that says so with the formula version, a lot pattern the browser
 * checks, and a recall whatever the lot's case.
 */
describe('console fixes: labels, notices, the moves the server allows, units and the fill', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let partner: OrderSetup;

  const operator = async (method: 'POST' | 'GET', url: string, body?: unknown) =>
    dataOf(await call(server, method, url, { operator: true, ...(body === undefined ? {} : { body }) }), `${method} ${url}`);
  /** An order of the cream for a patient of its own (a second one for the same patient would be held as duplicate therapy). */
  const creamOrder = async () =>
    placeOrder(
      server,
      partner.clinic.apiKey,
      { clinic: partner.clinic, ...(await createPractitionerAndPatient(server, partner.clinic)) },
      { medication_requests: [itemBody({ medication: 'Estriol Cream', dose: '1mg', quantity: 30, direction: 'Apply nightly' })] },
    );
  const statusPanel = () => page.getByRole('region', { name: 'Status' });

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    await operator('POST', '/api/admin/staff', { ...PHARMACIST, role: 'pharmacist' });
    partner = await createOrderingPartner(server, 'Meadow Clinic');
    await operator('POST', `/api/admin/clinics/${partner.clinic.clinicId}/medications`, CREAM);
    page = await openPage(browser, server);
    await signIn(page, PHARMACIST);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  it('when an order is on hold, then its status and reason are labels, and its quantity shows its unit', async () => {
    const orderId = await creamOrder();
    await operator('POST', `/api/admin/medication-requests/${orderId}/hold`, {
      reason_code: 'prescription_clarification',
      message: 'Please confirm the strength.',
    });
    await openOrderFromQueue(page, orderId);
    await statusPanel().getByText('on hold', { exact: true }).waitFor();
    const hold = page.getByRole('region', { name: /^On hold: / });
    expect(await hold.textContent()).toContain('Prescription clarification');
    expect(await page.locator('main').textContent()).not.toMatch(/on_hold|prescription_clarification/);
    // No unit was sent: the entry's dispense unit, never the dose's mg.
    await page.getByText('30 g', { exact: true }).first().waitFor();
  });

  it('when the pharmacist resolves an order’s last hold and then moves it, then the "Resolved" notice goes and the new one shows', async () => {
    const orderId = await creamOrder();
    await operator('POST', `/api/admin/medication-requests/${orderId}/hold`, {
      reason_code: 'out_of_stock',
      message: 'Waiting for the base.',
    });
    await openOrderFromQueue(page, orderId);
    // One hold: resolving it resumes the order (holds stack: the "Resumed" notice of issue 39 is now "Resolved").
    await page.getByRole('form', { name: 'Resolve out_of_stock' }).getByRole('button', { name: 'Resolve', exact: true }).click();
    const resumed = page.getByText('Resolved: the order is pending again.');
    await resumed.waitFor();

    await statusPanel().getByRole('button', { name: 'Start processing' }).click();
    await page.getByText('The order is now processing.').waitFor();
    expect(await resumed.count()).toBe(0);
    await screenshot(page, 'notice-after-next-action');
  });

  it('when a shipped order is held for a delivery exception, then Cancel is not offered (the server would refuse it)', async () => {
    const orderId = await creamOrder();
    await operator('POST', `/api/admin/medication-requests/${orderId}/status`, { status: 'processing' });
    await operator('POST', `/api/admin/medication-requests/${orderId}/status`, {
      status: 'shipped',
      tracking_number: '794612345678',
    });
    await operator('POST', `/api/admin/medication-requests/${orderId}/hold`, {
      reason_code: 'delivery_exception',
      message: 'The carrier could not deliver.',
    });
    const refused = await call(server, 'POST', `/api/admin/medication-requests/${orderId}/status`, {
      operator: true,
      body: { status: 'cancelled', reason: 'trying' },
    });
    expect(refused.status).toBe(409);

    await openOrderFromQueue(page, orderId);
    await statusPanel().getByText('on hold', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel order' }).count()).toBe(0);
  });

  it('when the pharmacist fills with an ingredient lot expiring first, then the form checked the lot, and the date says the lot capped it and names the formula version', async () => {
    const orderId = await creamOrder();
    await operator('POST', `/api/admin/medication-requests/${orderId}/status`, { status: 'processing' });
    await openOrderFromQueue(page, orderId);
    const form = page.getByRole('form', { name: 'Fill Estriol Cream' });
    const lot = form.getByLabel('Lot number');
    // The browser compiles the pattern with the v flag: a pattern it refused would check nothing.
    await lot.fill('CR 17');
    expect(await lot.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true);
    await lot.fill('CR-1/7');
    expect(await lot.evaluate((input: HTMLInputElement) => input.validity.valid)).toBe(true);

    const expires = inDays(20);
    const base = form.getByRole('group', { name: 'Ingredient 2' });
    await base.getByLabel('Ingredient lot').fill('CB-9');
    await base.getByLabel('Expires on').fill(expires);
    await form.getByRole('button', { name: 'Record fill' }).click();

    const fill = page.getByRole('group', { name: 'Fill of Estriol Cream' });
    await fill.waitFor();
    const shown = await fill.textContent();
    expect(shown).toContain('capped by ingredient lot CB-9 (Cream base), which expires');
    expect(shown).toContain('Made from version 1 of the formula');
    await screenshot(page, 'fill-capped-by-lot');
  });

  it('when staff recall a lot typed in lower case, then the orders of the lot are found', async () => {
    await navigate(page, 'Recall');
    await page.getByLabel('Lot number').fill('cr-1/7');
    await page.getByRole('button', { name: 'Find orders' }).click();
    const rows = page
      .getByRole('region', { name: 'Orders that received lot cr-1/7' })
      .getByRole('row')
      .filter({ has: page.getByRole('cell') });
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Meadow Clinic');
  });

  it('when the dashboard counts holds by reason, then each is its short label', async () => {
    await navigate(page, 'Dashboard');
    const section = page.getByRole('region', { name: 'Orders on hold by reason' });
    await section.getByText(/as a table$/).click();
    const headers = await section.locator('details table tbody th').evaluateAll((cells) => cells.map((cell) => cell.textContent));
    expect(headers.some((text) => text.startsWith('Delivery exception'))).toBe(true);
    expect(headers.some((text) => text.startsWith('Prescription clarification'))).toBe(true);
  });
});
