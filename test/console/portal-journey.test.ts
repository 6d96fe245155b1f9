import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderingPartner, createPractitionerAndPatient, dataOf, prepareToOrder } from '../faults/partner-server.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { call, createPartner } from '../instances/support.js';
import { acceptInvitation, inviteWithCli, portalApi, portalNavigate, portalSignIn } from './portal-support.js';
import {
  launchChromium,
  openPage,
  partnerOrder,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const CLINIC = 'Lakeview Pediatrics';
const DEVELOPER = { email: 'jo.developer@lakeview.example', name: 'Jo Developer' };
/** The second box's FedEx number (12 digits), added by the pharmacy. */
const SECOND_BOX = '794612345681';

/**
 * The order's journey in the portal (issue 31): a developer opens an order by its id and reads its
 * packages and their tracking events; sends a tracking event from the sandbox page, which delivers
 * the order once both boxes are; and another clinic's order id is not found.
 */
describe('the portal’s order page: the journey of a shipped order, a sandbox tracking event, and another clinic’s id', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let partner: { clinicId: string; apiKey: string };
  let orderId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    partner = await createPartner(server, CLINIC);
    await prepareToOrder(server, partner);
    const parties = await createPractitionerAndPatient(server, partner);
    orderId = await placeOrder(server, partner.apiKey, { clinic: { clinicId: partner.clinicId }, ...parties });
    const link = await inviteWithCli(server, partner.clinicId, DEVELOPER.email, 'developer');
    page = await openPage(browser, server);
    await acceptInvitation(page, link, DEVELOPER.name);
    await portalSignIn(page, DEVELOPER.email);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const operator = (method: string, path: string, body?: unknown) =>
    call(server, method, path, { operator: true, ...(body === undefined ? {} : { body }) });
  const journey = () => page.getByRole('region', { name: 'Journey' });
  const box = (trackingNumber: string) => journey().getByRole('article', { name: new RegExp(`${trackingNumber}$`) });

  /** Opens an order with the lookup box of the Orders page, as a developer with an id from their system does. */
  const lookUp = async (id: string) => {
    await portalNavigate(page, 'Orders');
    await page.getByRole('search', { name: 'Order lookup' }).getByLabel('Order id').fill(id);
    await page.getByRole('button', { name: 'Open order' }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${id}` }).waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
  };

  it('when the order is shipped in two packages with tracking events, then the developer opens it by id and reads its journey', async () => {
    // Shipped from the sandbox page (a test tracking number of the carrier's format); the pharmacy adds a second box.
    await portalNavigate(page, 'Sandbox');
    const row = page.getByRole('row').filter({ hasText: orderId });
    await row.getByRole('button', { name: 'Move to processing' }).click();
    await row.getByText('processing', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Move to shipped' }).click();
    await row.getByText('shipped', { exact: true }).waitFor();
    const firstBox: string = (await partnerOrder(server, partner.apiKey, orderId)).tracking_number;
    dataOf(
      await operator('POST', `/api/admin/medication-requests/${orderId}/shipments`, { tracking_number: SECOND_BOX }),
      'add box',
    );
    const shipments = (await partnerOrder(server, partner.apiKey, orderId)).shipments as { shipment_id: string }[];
    const second = shipments[1]?.shipment_id ?? '';
    const now = Date.now();
    dataOf(
      await operator('POST', `/api/admin/medication-requests/${orderId}/shipments/${second}/events`, {
        status: 'out_for_delivery',
        occurred_at: new Date(now).toISOString(),
        location: 'Madison, WI',
        description: 'On the van',
        estimated_delivery_date: '2030-01-02',
      }),
      'second box out for delivery',
    );

    await lookUp(orderId);
    await page
      .getByRole('region', { name: /^Status/ })
      .getByText('shipped', { exact: true })
      .waitFor();
    await box(firstBox).waitFor();
    await box(SECOND_BOX).getByText('On the van').waitFor();
    await box(SECOND_BOX).getByText('Madison, WI').waitFor();
    await box(SECOND_BOX).getByRole('heading').getByText('Out for delivery', { exact: true }).waitFor();
    const link = box(SECOND_BOX).getByRole('link', { name: new RegExp(SECOND_BOX) });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await screenshot(page, 'portal-order-journey');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('when the developer sends tracking events from the sandbox page, then each box is delivered, then the order', async () => {
    await portalNavigate(page, 'Sandbox');
    const row = page.getByRole('row').filter({ hasText: orderId });
    for (const expected of [2, 1]) {
      await row.getByRole('button', { name: 'Send tracking event' }).click();
      const form = page.getByRole('form', { name: `Send tracking event for order ${orderId}` });
      // The form shows once the order's packages are read: wait for their loading to end before counting.
      await page.getByText('Loading the order’s packages').waitFor({ state: 'detached' });
      await form.waitFor();
      // Only the packages not yet delivered are offered.
      expect(await form.getByLabel('Package').locator('option').count()).toBe(expected);
      await form.getByLabel('Status').selectOption({ label: 'Delivered' });
      await form.getByLabel('Location (optional)').fill('Madison, WI');
      await form.getByRole('button', { name: 'Send tracking event' }).click();
      await page.getByText(/delivered recorded; its webhook event shipment\.updated is on its way/).waitFor();
      await form.waitFor({ state: 'detached' });
    }
    await row.getByText('delivered', { exact: true }).waitFor();
    expect(await row.getByRole('button', { name: 'Send tracking event' }).count()).toBe(0);
    const order = await partnerOrder(server, partner.apiKey, orderId);
    expect(order.status).toBe('delivered');
    expect(order.shipments.map((s: { status: string }) => s.status)).toEqual(['delivered', 'delivered']);

    // The sandbox list links to the order's page, which shows the delivered journey.
    await row.getByRole('link', { name: orderId }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${orderId}` }).waitFor();
    await journey().getByRole('article').first().waitFor();
    expect(await journey().getByRole('heading').getByText('Delivered', { exact: true }).count()).toBe(2);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('when the developer looks up another clinic’s order id, then the page says it is not found, as the API does', async () => {
    const other = await createOrderingPartner(server, 'Another Clinic');
    const theirs = await placeOrder(server, other.clinic.apiKey, other);
    await lookUp(theirs);
    await page.getByRole('alert').getByText('Medication request not found').waitFor();
    expect(await journey().count()).toBe(0);
    const refused = await portalApi(page, server, 'GET', `/api/portal/orders/${theirs}`);
    expect(refused.status).toBe(404);
    // The lookup refuses what is not an order id at all, before asking the server.
    await page.getByRole('search', { name: 'Order lookup' }).getByLabel('Order id').fill('not an id');
    await page.getByRole('button', { name: 'Open order' }).click();
    await page
      .getByRole('alert')
      .getByText(/An order id is a UUID/)
      .waitFor();
  });
});
