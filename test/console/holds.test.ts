import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import type { OrderSetup } from '../helpers/factories.js';
import {
  launchChromium,
  navigate,
  openOrderFromQueue,
  openPage,
  pageReady,
  partnerOrder,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const PHARMACIST = {
  email: 'hollis.pharmacist@pharmacy.example',
  name: 'Hollis Pharmacist',
  password: 'pharmacist passphrase 2026',
};
const REASON = 'prescription_clarification';
const MESSAGE = 'Please confirm the dose: 0.25 mg or 2.5 mg?';
const ANSWER = 'The prescriber confirms 0.25 mg.';

/**
 * Holds in the console (issue 29, "The people who work it"): a pharmacist puts an order on hold from
 * its page with a reason of the server's catalog, finds it in the Holds view under whom it waits on,
 * reads the partner's answer in the order's history and resumes it; the dashboard counts it.
 */
describe('holds: a pharmacist holds an order, the partner answers, the pharmacist resumes it', () => {
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
    partner = await createOrderingPartner(server, 'Riverside Family Clinic');
    orderId = await placeOrder(server, partner.clinic.apiKey, partner);
    page = await openPage(browser, server);
    await signIn(page, PHARMACIST);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const statusPanel = () => page.getByRole('region', { name: 'Status' });
  const badge = (status: string) => statusPanel().getByText(status, { exact: true });
  const holdPanel = () => page.getByRole('region', { name: /^On hold: / });
  /** The row of the order in a group of the Holds view (the row shows the order's last 8 characters). */
  const rowIn = (group: string) =>
    page
      .getByRole('region', { name: group })
      .getByRole('row')
      .filter({ hasText: orderId.slice(-8) });
  const openHolds = async () => {
    await navigate(page, 'Holds');
    await page.locator('.loading').first().waitFor({ state: 'detached' });
  };

  it('when the pharmacist puts the order on hold from its page, then the hold is shown and the partner reads it', async () => {
    await openOrderFromQueue(page, orderId);
    await page.getByRole('button', { name: 'Put on hold', exact: true }).click();
    const form = page.getByRole('form', { name: 'Put on hold' });
    // The reasons are the server's catalog: the option's value is its code.
    await form.getByLabel('Reason').selectOption(REASON);
    await form.getByLabel('Message to the partner').fill(MESSAGE);
    await form.getByRole('button', { name: 'Put on hold' }).click();

    await holdPanel().waitFor();
    await badge('on hold').waitFor();
    expect(await holdPanel().textContent()).toContain(MESSAGE);
    expect(await holdPanel().textContent()).toContain('the partner');
    const history = page.getByRole('region', { name: 'Hold history' });
    expect(await history.getByRole('row').filter({ hasText: 'Put on hold' }).textContent()).toContain(PHARMACIST.name);
    await screenshot(page, 'order-on-hold');

    expect(await partnerOrder(server, partner.clinic.apiKey, orderId)).toMatchObject({
      status: 'on_hold',
      hold: { reason_code: REASON, message: MESSAGE, waiting_on: 'partner' },
    });
  });

  it('when the order waits on the partner, then the Holds view lists it in that group with its age, linking to the order', async () => {
    await openHolds();
    await rowIn('Waiting on the partner').waitFor();
    expect(await rowIn('Waiting on the pharmacy').count()).toBe(0);
    expect(await rowIn('Waiting on the partner').textContent()).toMatch(/\d+(\.\d)? h/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'holds');
  });

  it('when the dashboard is opened, then it counts the hold under its reason', async () => {
    await navigate(page, 'Dashboard');
    const section = page.getByRole('region', { name: 'Orders on hold by reason' });
    await section.getByText(/^1 orders on hold now: 1 waiting on the partner, 0 on the pharmacy\.$/).waitFor();
    await section.getByText(/as a table$/).click();
    const counts = await section
      .locator('details table tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent.trim())));
    expect(counts.filter(([, count]) => count !== '0')).toHaveLength(1);
    expect(counts.reduce((total, [, count]) => total + Number(count), 0)).toBe(1);
  });

  it('when the partner answers, then the order moves to the pharmacy\u2019s group and its page shows the answer', async () => {
    dataOf(
      await call(server, 'POST', `/api/external/medication-order/${orderId}/hold-response`, {
        apiKey: partner.clinic.apiKey,
        body: { message: ANSWER },
      }),
      'answer the hold',
    );
    await openHolds();
    await rowIn('Waiting on the pharmacy').waitFor();
    expect(await rowIn('Waiting on the partner').count()).toBe(0);

    await rowIn('Waiting on the pharmacy').getByRole('link').first().click();
    await pageReady(page);
    await holdPanel().waitFor();
    expect(await holdPanel().textContent()).toContain('the pharmacy');
    const history = page.getByRole('region', { name: 'Hold history' });
    expect(await history.getByRole('row').filter({ hasText: 'Partner answered' }).textContent()).toContain(ANSWER);
  });

  it('when the pharmacist resumes the order, then it is pending again, leaves the Holds view, and the history says who', async () => {
    await holdPanel()
      .getByLabel(/Message to the partner/)
      .fill('Thank you, filling it now.');
    // One hold open: it is resolved by its own form (the order resumes with its last hold).
    await holdPanel().getByRole('button', { name: 'Resolve', exact: true }).click();

    await badge('pending').waitFor();
    expect(await holdPanel().count()).toBe(0);
    const history = page.getByRole('region', { name: 'Hold history' });
    expect(await history.getByRole('row').filter({ hasText: 'Resumed' }).textContent()).toContain(PHARMACIST.name);
    expect(await partnerOrder(server, partner.clinic.apiKey, orderId)).toMatchObject({ status: 'pending', hold: null });

    await openHolds();
    await page.getByText('No hold waits on a partner.').waitFor();
    await page.getByText('No hold waits on the pharmacy.').waitFor();
  });
});
