import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, createPractitionerAndPatient } from '../faults/partner-server.js';
import type { OrderSetup } from '../helpers/factories.js';
import {
  FIRST_ADMIN,
  launchChromium,
  navigate,
  openOrderFromQueue,
  openPage,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const FLAG = 'Refrigerated on a service not marked cold-chain eligible';

/** Issue 31, item 5: delivery options on the order page and its label; cold-chain eligibility set on the carriers page. */
describe('delivery options and cold chain in the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let partner: OrderSetup;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    partner = await createOrderingPartner(server);
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const shipping = () => page.getByRole('region', { name: 'Shipping' });
  /** A new patient each time: one medication twice for one patient is held as duplicate therapy. */
  const order = async (overrides: Record<string, unknown>) =>
    placeOrder(
      server,
      partner.clinic.apiKey,
      { ...partner, ...(await createPractitionerAndPatient(server, partner.clinic)) },
      overrides,
    );

  it('when an admin marks a service cold-chain eligible on the carriers page, then its row says so', async () => {
    await navigate(page, 'Carriers');
    const fedex = page.getByRole('region', { name: /FedEx/ });
    const row = fedex.getByRole('row').filter({ hasText: 'FedEx 2Day®' });
    await row.getByText('Not eligible').waitFor();
    await row.getByRole('button', { name: /Edit/ }).click();
    const form = fedex.getByRole('form', { name: 'Edit FedEx 2Day®' });
    await form.getByLabel(/Cold-chain eligible/).check();
    await form.getByRole('button', { name: 'Save prices' }).click();
    await row.getByText('Cold-chain eligible', { exact: true }).waitFor();
    // FedEx Ground stays ineligible.
    await fedex.getByRole('row').filter({ hasText: 'FedEx Ground®' }).getByText('Not eligible').waitFor();
    await screenshot(page, 'carriers-cold-chain');
  });

  it('when a refrigerated order with a signature and Saturday delivery is on a service not cold-chain eligible, then the page flags it and shows the options, and the printed label names them', async () => {
    const orderId = await order({
      is_refrigerated: true,
      service_id: 'fedex_ground',
      signature_required: true,
      saturday_delivery: true,
    });
    await openOrderFromQueue(page, orderId);
    await shipping().getByText(FLAG).waitFor();
    const facts = await shipping().innerText();
    expect(facts).toMatch(/Signature required\s+Yes/);
    expect(facts).toMatch(/Saturday delivery\s+Yes/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'order-cold-chain-flag');

    await page.emulateMedia({ media: 'print' });
    try {
      const label = page.getByRole('list', { name: 'Delivery options' });
      await label.waitFor();
      expect(await label.getByRole('listitem').allInnerTexts()).toEqual(['Signature required', 'Saturday delivery']);
      const printed = await page.evaluate(() => document.body.innerText);
      expect(printed).toMatch(/Refrigerated: keep cold/);
      // The flag is the pharmacy's, on screen: not on the label.
      expect(printed).not.toContain(FLAG);
      await screenshot(page, 'order-label-delivery-options');
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
  });

  it('when a refrigerated order is on an eligible service and asks for no option, then there is no flag, the options say No, and the label lists none', async () => {
    const orderId = await order({ is_refrigerated: true, service_id: 'fedex_2day' });
    await openOrderFromQueue(page, orderId);
    await shipping().getByText('FedEx 2Day®').waitFor();
    const facts = await shipping().innerText();
    expect(facts).toMatch(/Signature required\s+No/);
    expect(facts).toMatch(/Saturday delivery\s+No/);
    expect(facts).not.toContain(FLAG);
    expect(await page.getByRole('list', { name: 'Delivery options' }).count()).toBe(0);
  });
});
