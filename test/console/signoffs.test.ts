import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses, runAdminCli } from '../helpers/server-process.js';
import { createOrderingPartner } from '../faults/partner-server.js';
import type { OrderSetup } from '../helpers/factories.js';
import {
  launchChromium,
  openOrderFromQueue,
  openPage,
  placeOrder,
  screenshot,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const PHARMACIST = {
  email: 'sage.signer@pharmacy.example',
  name: 'Sage Signer',
  password: 'pharmacist passphrase 2026',
};
const TRACKING_NUMBER = '794612345678';

/**
 * The pharmacist's two sign-offs on the console's order page (docs/compounding.md#sign-offs), on a
 * server that requires them (REQUIRE_PHARMACIST_SIGNOFF=true): each move waits for its sign-off,
 * and each sign-off shows who and when once given.
 */
describe('sign-offs: a pharmacist reviews, checks and ships an order in the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let partner: OrderSetup;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer({ REQUIRE_PHARMACIST_SIGNOFF: 'true' }), launchChromium()]);
    await runAdminCli(
      ['create-staff', '--email', PHARMACIST.email, '--name', PHARMACIST.name, '--role', 'pharmacist', '--password-stdin'],
      { env: server.database.env, input: `${PHARMACIST.password}\n` },
    );
    partner = await createOrderingPartner(server);
    page = await openPage(browser, server);
    await signIn(page, PHARMACIST);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const signoffs = () => page.getByRole('region', { name: 'Pharmacist sign-offs' });
  const statusPanel = () => page.getByRole('region', { name: 'Status' });

  it('when the pharmacist starts an unreviewed order, then it is refused; once signed off, each step shows who signed and the order ships', async () => {
    const orderId = await placeOrder(server, partner.clinic.apiKey, partner);
    await openOrderFromQueue(page, orderId);
    await signoffs().getByText('not signed').first().waitFor();
    // The product check waits for processing: no button for it yet.
    expect(await signoffs().getByRole('button', { name: 'Sign off product check' }).count()).toBe(0);

    await statusPanel().getByRole('button', { name: 'Start processing', exact: true }).click();
    await statusPanel()
      .getByText(/prescription review/)
      .waitFor();
    await statusPanel().getByText('pending', { exact: true }).waitFor();

    await signoffs().getByRole('button', { name: 'Sign off prescription review' }).click();
    await signoffs().getByText(`Signed by ${PHARMACIST.name}`).waitFor();
    await statusPanel().getByRole('button', { name: 'Start processing', exact: true }).click();
    await statusPanel().getByText('processing', { exact: true }).waitFor();

    await signoffs().getByRole('button', { name: 'Sign off product check' }).click();
    await expect.poll(() => signoffs().getByText(`Signed by ${PHARMACIST.name}`).count()).toBe(2);
    await statusPanel().getByLabel('Tracking number').fill(TRACKING_NUMBER);
    await statusPanel().getByRole('button', { name: 'Mark shipped', exact: true }).click();
    await statusPanel().getByText('shipped', { exact: true }).waitFor();
    await screenshot(page, 'order-signoffs');

    // A reload reads them from the server: both named, neither offered again.
    await page.reload();
    await expect.poll(() => signoffs().getByText(`Signed by ${PHARMACIST.name}`).count()).toBe(2);
    expect(await signoffs().getByRole('button').count()).toBe(0);
  });
});
