import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, dataOf } from '../faults/partner-server.js';
import type { OrderSetup } from '../helpers/factories.js';
import { call } from '../instances/support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  openOrderFromQueue,
  openPage,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
  type Credentials,
} from './support.js';

const PASSWORD = 'staff passphrase for 2026';
const REVIEWER = { email: 'rae.reviewer@pharmacy.example', name: 'Rae Reviewer', password: PASSWORD };
const CHECKER = { email: 'cleo.checker@pharmacy.example', name: 'Cleo Checker', password: PASSWORD };
const TECHNICIAN = { email: 'tara.tech@pharmacy.example', name: 'Tara Technician', password: PASSWORD };
/** FedEx numbers (12 digits), the order's carrier's format. */
const FIRST_BOX = '794612345678';
const SECOND_BOX = '794612345679';

/**
 * Sign-offs by the person and the technician's day in the console (issue 39, items 3 and 4;
 * docs/compounding.md#sign-offs, docs/console.md#roles), on a server that requires the sign-offs and
 * an independent final check: a pharmacist reviews with the three checks; a technician, whose
 * console has no sign-off, move or hold and no Audit or Staff, records the fill; another pharmacist,
 * whose final check waited for that fill, gives it and ships; the technician adds a package and a
 * tracking event. An admin sees the sign-offs and cannot give one.
 *
 * The technician's package and tracking event come after the final check: a package is added to a
 * shipped order, and the order ships only once checked.
 */
describe('sign-offs by the person: the technician’s day', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let partner: OrderSetup;
  let orderId: string;
  const pages: Record<'reviewer' | 'checker' | 'technician' | 'admin', Page> = {} as never;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startConsoleServer({ REQUIRE_PHARMACIST_SIGNOFF: 'true', REQUIRE_INDEPENDENT_CHECK: 'true' }),
      launchChromium(),
    ]);
    for (const [person, role] of [
      [REVIEWER, 'pharmacist'],
      [CHECKER, 'pharmacist'],
      [TECHNICIAN, 'technician'],
    ] as const) {
      dataOf(await call(server, 'POST', '/api/admin/staff', { operator: true, body: { ...person, role } }), `create ${role}`);
    }
    partner = await createOrderingPartner(server);
    orderId = await placeOrder(server, partner.clinic.apiKey, partner);
    const signedIn = async (credentials: Credentials) => {
      const page = await openPage(browser, server);
      await signIn(page, credentials);
      return page;
    };
    pages.reviewer = await signedIn(REVIEWER);
    pages.checker = await signedIn(CHECKER);
    pages.technician = await signedIn(TECHNICIAN);
    pages.admin = await signedIn(FIRST_ADMIN);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const signoffs = (page: Page) => page.getByRole('region', { name: 'Pharmacist sign-offs' });
  const statusPanel = (page: Page) => page.getByRole('region', { name: 'Status' });
  const shipments = (page: Page) => page.getByRole('region', { name: 'Shipments' });

  it('when the pharmacist reviews, then each of the three checks must be ticked, and the review shows who signed and what was checked', async () => {
    const page = pages.reviewer;
    await openOrderFromQueue(page, orderId);
    const review = signoffs(page).getByRole('form', { name: 'Prescription review' });
    const sign = review.getByRole('button', { name: 'Sign off prescription review' });
    expect(await sign.isDisabled()).toBe(true);
    await review.getByLabel('Allergies').check();
    await review.getByLabel('Duplicate therapy').check();
    expect(await sign.isDisabled()).toBe(true);
    await review.getByLabel('Dose').check();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await sign.click();
    await signoffs(page).getByText(`Signed by ${REVIEWER.name}`).waitFor();
    await signoffs(page).getByText('Checked: allergies, duplicate therapy, dose').waitFor();
    await statusPanel(page).getByRole('button', { name: 'Start processing', exact: true }).click();
    await statusPanel(page).getByText('processing', { exact: true }).waitFor();
  });

  it('when another pharmacist opens the unfilled order, then the final check is disabled and names the item still to fill', async () => {
    const page = pages.checker;
    await openOrderFromQueue(page, orderId);
    const button = signoffs(page).getByRole('button', { name: 'Sign off final check' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    await signoffs(page)
      .getByText(/^\s*Waits for the fill of: /)
      .waitFor();
    await screenshot(page, 'final-check-waits-for-fill');
  });

  it('when the technician signs in, then they record the fill, and see no sign-off form, move, hold, Audit or Staff', async () => {
    const page = pages.technician;
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(links).toEqual(['Orders', 'Holds', 'Recall', 'Carriers', 'Account']);
    await openOrderFromQueue(page, orderId);
    await signoffs(page).waitFor();
    expect(await signoffs(page).getByRole('button').count()).toBe(0);
    expect(await signoffs(page).getByRole('form').count()).toBe(0);
    expect(await statusPanel(page).getByRole('button').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Put on hold' }).count()).toBe(0);

    const form = page.getByRole('form', { name: /^Fill / });
    await form.getByLabel('Lot number').fill('TECH-24-1');
    await form.getByRole('button', { name: 'Record fill' }).click();
    await page
      .getByRole('group', { name: /^Fill of / })
      .getByText(TECHNICIAN.name)
      .waitFor();
    await screenshot(page, 'technician-order');
  });

  it('when the fill is recorded, then the other pharmacist gives the final check and ships the order', async () => {
    const page = pages.checker;
    await page.reload();
    const button = signoffs(page).getByRole('button', { name: 'Sign off final check' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(false);
    await button.click();
    await signoffs(page).getByText(`Signed by ${CHECKER.name}`).waitFor();
    await statusPanel(page).getByLabel('Tracking number').fill(FIRST_BOX);
    await statusPanel(page).getByRole('button', { name: 'Mark shipped', exact: true }).click();
    await statusPanel(page).getByText('shipped', { exact: true }).waitFor();
  });

  it('when the order has shipped, then the technician adds a package and a tracking event, and still has no sign-off form', async () => {
    const page = pages.technician;
    await page.reload();
    await shipments(page).getByRole('button', { name: 'Add package' }).click();
    const add = shipments(page).getByRole('form', { name: 'Add package' });
    await add.getByLabel('Tracking number').fill(SECOND_BOX);
    await add.getByRole('button', { name: 'Add package' }).click();
    await shipments(page).getByText(`Package ${SECOND_BOX} added.`).waitFor();

    const card = shipments(page).getByRole('article', { name: new RegExp(`${SECOND_BOX}$`) });
    await card.getByRole('button', { name: /^Add tracking event/ }).click();
    const event = card.getByRole('form', { name: /^Add tracking event/ });
    await event.getByLabel('Status').selectOption({ label: 'Out for delivery' });
    await event.getByLabel('Location').fill('Sacramento, CA');
    await event.getByRole('button', { name: 'Add tracking event' }).click();
    await event.waitFor({ state: 'detached' });
    await card.getByText('Out for delivery', { exact: true }).first().waitFor();
    expect(await signoffs(page).getByRole('button').count()).toBe(0);
    await screenshot(page, 'technician-shipments');
  });

  it('when an admin opens an order awaiting its review, then no sign-off is offered, and the API refuses one from the admin’s page', async () => {
    const page = pages.admin;
    const waiting = await placeOrder(server, partner.clinic.apiKey, partner);
    await openOrderFromQueue(page, waiting);
    await signoffs(page).getByText('A pharmacist signs off, signed in as themselves.').waitFor();
    expect(await signoffs(page).getByRole('button').count()).toBe(0);
    const answer = await page.evaluate(async (id) => {
      const response = await fetch(`/api/admin/medication-requests/${id}/signoffs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'prescription_review', checked: ['allergies', 'duplicate_therapy', 'dose'] }),
      });
      return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
    }, waiting);
    expect(answer.status).toBe(403);
    expect(answer.body.error?.message).toContain('you are signed in as admin');
  });
});
