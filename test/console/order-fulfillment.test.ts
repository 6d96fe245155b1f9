import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemBody } from '../helpers/factories.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { createOrderingPartner, createPractitionerAndPatient } from '../faults/partner-server.js';
import {
  FIRST_ADMIN,
  launchChromium,
  navigate,
  openOrderFromQueue,
  openPage,
  pageReady,
  partnerOrder,
  placeOrder,
  screenshot,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const CLINIC = 'Riverside Family Clinic';
/** Not in any other test's formulary: an order of it proves the console's Add medication took. */
const MEDICATION = 'Tirzepatide';
const TRACKING_NUMBER = '794612345678';
const CANCEL_REASON = 'Duplicate of an order sent by fax';

describe('the order queue: from a clinic onboarded in the console to a delivered order', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const statusPanel = () => page.getByRole('region', { name: 'Status' });
  const action = (name: string) => statusPanel().getByRole('button', { name, exact: true });
  /** The order's status as the panel shows it (exact: "Mark delivered" and the notices name statuses too). */
  const badge = (status: string) => statusPanel().getByText(status, { exact: true });

  it('when a clinic is onboarded in the console and its key orders, then staff ship the order and the partner sees the tracking number', async () => {
    // Onboarding: the clinic, its key (shown once), its formulary.
    await navigate(page, 'Clinics');
    await page.getByRole('button', { name: 'New clinic' }).click();
    const newClinic = page.getByRole('form', { name: 'New clinic' });
    await newClinic.getByLabel('Name').fill(CLINIC);
    await newClinic.getByRole('button', { name: 'Create clinic' }).click();
    await pageReady(page, CLINIC);
    const clinicId = new URL(page.url()).pathname.split('/').pop() ?? '';
    await page.getByRole('button', { name: 'Issue API key' }).click();
    const apiKey = await page.getByRole('textbox', { name: 'API key' }).inputValue();
    expect(apiKey).toMatch(/^dev_/);
    const addMedication = page.getByRole('form', { name: 'Add medication' });
    await addMedication.getByLabel('Name').fill(MEDICATION);
    await addMedication.getByRole('button', { name: 'Add medication' }).click();
    await page.getByRole('cell', { name: MEDICATION, exact: true }).waitFor();
    // Added with a name only: the formulary marks it as having no formula.
    await page.getByRole('row').filter({ hasText: MEDICATION }).getByText('no formula', { exact: true }).waitFor();
    await screenshot(page, 'clinic');

    // The clinic's system, with the key it was given: a practitioner, a patient, an order.
    const parties = await createPractitionerAndPatient(server, { clinicId, apiKey });
    const orderId = await placeOrder(
      server,
      apiKey,
      { clinic: { clinicId }, ...parties },
      {
        medication_requests: [itemBody({ medication: MEDICATION })],
      },
    );

    // The pharmacy finds it in the queue and works it; each action shows the new status in place.
    await openOrderFromQueue(page, orderId);
    await page.getByText('Grace Hopper').first().waitFor();
    await page.getByText('2 Elm St').first().waitFor();
    await badge('pending').waitFor();
    // Beside the item: the formulary's entry, marked as having no formula.
    await page.getByRole('region', { name: 'Items' }).getByText('no formula', { exact: true }).waitFor();

    await action('Start processing').click();
    await badge('processing').waitFor();
    expect(await action('Start processing').count()).toBe(0);

    await statusPanel().getByLabel('Tracking number').fill(TRACKING_NUMBER);
    await action('Mark shipped').click();
    await badge('shipped').waitFor();
    await page.getByText(TRACKING_NUMBER).first().waitFor();
    expect(await action('Mark shipped').count()).toBe(0);
    await screenshot(page, 'order-shipped');

    expect(await partnerOrder(server, apiKey, orderId)).toMatchObject({ status: 'shipped', tracking_number: TRACKING_NUMBER });

    await action('Mark delivered').click();
    await badge('delivered').waitFor();
    expect(await statusPanel().getByRole('button').count()).toBe(0);
    expect(await partnerOrder(server, apiKey, orderId)).toMatchObject({ status: 'delivered' });
  });

  it('when staff cancel an order with a reason and confirm, then it is cancelled, its history shows the reason, and the partner sees it cancelled without the reason', async () => {
    const partner = await createOrderingPartner(server);
    const orderId = await placeOrder(server, partner.clinic.apiKey, partner);
    await openOrderFromQueue(page, orderId);

    await action('Cancel order').click();
    const confirmation = page.getByRole('form', { name: /cancel this order/i });
    const confirm = confirmation.getByRole('button', { name: 'Confirm cancellation' });
    // No reason, no cancellation: the button waits for one.
    expect(await confirm.isDisabled()).toBe(true);
    await confirmation.getByLabel('Reason for cancelling').fill(CANCEL_REASON);
    await confirm.click();

    await badge('cancelled').waitFor();
    expect(await action('Cancel order').count()).toBe(0);
    expect(await action('Start processing').count()).toBe(0);
    const cancelledStep = () => page.getByRole('row').filter({ hasText: /^pending\s*cancelled/ });
    await cancelledStep().getByText(CANCEL_REASON).waitFor();
    // The server kept it: read again.
    await page.reload();
    await badge('cancelled').waitFor();
    await cancelledStep().getByText(CANCEL_REASON).waitFor();
    const seen = await partnerOrder(server, partner.clinic.apiKey, orderId);
    expect(seen).toMatchObject({ status: 'cancelled' });
    expect(JSON.stringify(seen)).not.toContain(CANCEL_REASON);
  });
});
