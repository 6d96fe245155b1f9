import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemBody, type OrderSetup } from '../helpers/factories.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import {
  launchChromium,
  openOrderFromQueue,
  openPage,
  partnerOrder,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const PHARMACIST = {
  email: 'fay.pharmacist@pharmacy.example',
  name: 'Fay Pharmacist',
  password: 'pharmacist passphrase 2026',
};
/** A non-aqueous cream: 90 days (USP <795>), capped here by its base's lot. */
const FORMULA = {
  name: 'Progesterone',
  ingredients: [
    { name: 'Progesterone micronized', strength: '100', unit: 'mg/g', active: true },
    { name: 'Cream base', strength: '1', unit: 'g', active: false },
  ],
  preparation: 'non_sterile',
  bud_category: 'non_aqueous',
  storage: 'room',
};

/**
 * The fill in the console (issue 30, item 3; docs/compounding.md#the-fill): a pharmacist records an
 * item's lot, when it was compounded and an ingredient lot from the order's page, and sees the
 * beyond-use date the server computed; the partner reads the same.
 */
describe('the fill: a pharmacist fills an item from the order page and sees its beyond-use date', () => {
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
    partner = await createOrderingPartner(server, 'Lakeside Compounding Clinic');
    dataOf(
      await call(server, 'POST', `/api/admin/clinics/${partner.clinic.clinicId}/medications`, { operator: true, body: FORMULA }),
      'add formula entry',
    );
    orderId = await placeOrder(server, partner.clinic.apiKey, partner, {
      medication_requests: [itemBody({ medication: 'Progesterone', dose: '100mg' })],
    });
    dataOf(
      await call(server, 'POST', `/api/admin/medication-requests/${orderId}/status`, {
        operator: true,
        body: { status: 'processing' },
      }),
      'process',
    );
    page = await openPage(browser, server);
    await signIn(page, PHARMACIST);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  it('when the pharmacist records the fill, then the item shows its lot and beyond-use date, and the partner reads them', async () => {
    await openOrderFromQueue(page, orderId);
    const form = page.getByRole('form', { name: 'Fill Progesterone' });
    // The ingredient rows start with the formula's ingredients.
    const first = form.getByRole('group', { name: 'Ingredient 1' });
    expect(await first.getByLabel('Ingredient', { exact: true }).inputValue()).toBe('Progesterone micronized');
    expect(await form.getByRole('group', { name: 'Ingredient 2' }).getByLabel('Ingredient', { exact: true }).inputValue()).toBe(
      'Cream base',
    );
    expect(await seriousAxeViolations(page)).toEqual([]);

    await form.getByLabel('Lot number').fill('24-117');
    await form.getByLabel('Compounded at').fill('2026-11-20T09:30');
    await first.getByLabel('Ingredient lot').fill('PRG-7');
    await first.getByLabel('Expires on').fill('2027-01-15');
    await screenshot(page, 'order-fill-form');
    await form.getByRole('button', { name: 'Record fill' }).click();

    // 90 days from 2026-11-20 would be 2027-02-18: the ingredient lot's expiry comes first.
    const fill = page.getByRole('group', { name: 'Fill of Progesterone' });
    await fill.waitFor();
    const shown = await fill.textContent();
    expect(shown).toContain('24-117');
    expect(shown).toContain('Jan 15, 2027');
    expect(shown).toContain('Room temperature');
    expect(shown).toContain('PRG-7');
    expect(shown).toContain(PHARMACIST.name);
    expect(await form.count()).toBe(0);
    await screenshot(page, 'order-filled');

    const order = await partnerOrder(server, partner.clinic.apiKey, orderId);
    expect(order.medication_requests[0].fill).toEqual({
      lot_number: '24-117',
      beyond_use_date: '2027-01-15',
      beyond_use_at: null,
      beyond_use_basis: 'ingredient_lot',
      formula_version: 1,
      storage: 'room',
    });
  });
});
