import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPractitionerAndPatient, prepareToOrder } from '../faults/partner-server.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { createPartner } from '../instances/support.js';
import {
  FIRST_ADMIN,
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

const CLINIC = 'Harbor Compounding Partners';
/** FedEx numbers (12 digits), the order's carrier's format. */
const FIRST_BOX = '794612345678';
const SECOND_BOX = '794612345679';
const HELD_BOX = '794612345680';

/**
 * The order's journey in the console (issue 31): staff ship an order, add a second package (a cold
 * chain order travelling in two boxes), record each package's tracking events through the page, and
 * read the timeline; the order is delivered when both boxes are, and a delivery exception puts
 * another order on hold.
 */
describe('the console’s Shipments panel: an order shipped in two packages, tracked to delivery, and an exception', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let partner: { clinicId: string; apiKey: string };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    partner = await createPartner(server, CLINIC);
    await prepareToOrder(server, partner);
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  /** A new order of the clinic, for a patient of its own (no duplicate-therapy hold). */
  const newOrder = async (): Promise<string> => {
    const parties = await createPractitionerAndPatient(server, partner);
    return placeOrder(server, partner.apiKey, { clinic: { clinicId: partner.clinicId }, ...parties });
  };
  const statusPanel = () => page.getByRole('region', { name: 'Status' });
  const badge = (status: string) => statusPanel().getByText(status, { exact: true });
  const shipments = () => page.getByRole('region', { name: 'Shipments' });
  const box = (trackingNumber: string) => shipments().getByRole('article', { name: new RegExp(`${trackingNumber}$`) });

  /** Opens the order, starts processing and marks it shipped with `trackingNumber`, as staff do. */
  const ship = async (orderId: string, trackingNumber: string) => {
    await openOrderFromQueue(page, orderId);
    await statusPanel().getByRole('button', { name: 'Start processing', exact: true }).click();
    await badge('processing').waitFor();
    await statusPanel().getByLabel('Tracking number').fill(trackingNumber);
    await statusPanel().getByRole('button', { name: 'Mark shipped', exact: true }).click();
    await badge('shipped').waitFor();
  };

  /** Opens the package's "Add tracking event" form, fills it and sends it. */
  const addEvent = async (
    trackingNumber: string,
    event: { status: string; location?: string; description?: string; eta?: string },
  ) => {
    const card = box(trackingNumber);
    await card.getByRole('button', { name: /^Add tracking event/ }).click();
    const form = card.getByRole('form', { name: /^Add tracking event/ });
    await form.getByLabel('Status').selectOption({ label: event.status });
    if (event.location) await form.getByLabel('Location').fill(event.location);
    if (event.description) await form.getByLabel('Description').fill(event.description);
    if (event.eta) await form.getByLabel('Estimated delivery').fill(event.eta);
    await form.getByRole('button', { name: 'Add tracking event' }).click();
    await form.waitFor({ state: 'detached' });
  };

  it('when staff ship an order and add a second package, then both packages show with their carrier, tracking link and status', async () => {
    const orderId = await newOrder();
    await ship(orderId, FIRST_BOX);
    await box(FIRST_BOX).waitFor();
    await box(FIRST_BOX).getByText('In transit', { exact: true }).first().waitFor();

    await shipments().getByRole('button', { name: 'Add package' }).click();
    const form = shipments().getByRole('form', { name: 'Add package' });
    await form.getByLabel('Tracking number').fill(SECOND_BOX);
    await form.getByRole('button', { name: 'Add package' }).click();
    await shipments().getByText(`Package ${SECOND_BOX} added.`).waitFor();
    await box(SECOND_BOX).waitFor();
    expect(await shipments().getByRole('article').count()).toBe(2);
    await box(FIRST_BOX)
      .getByRole('heading', { name: /Package 1 of 2/ })
      .waitFor();

    // FedEx has a public tracking page: the number links to it, in a new tab that cannot reach back.
    const link = box(SECOND_BOX).getByRole('link', { name: new RegExp(SECOND_BOX) });
    expect(await link.getAttribute('href')).toContain(SECOND_BOX);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');

    const order = await partnerOrder(server, partner.apiKey, orderId);
    expect(order.shipments.map((s: { tracking_number: string }) => s.tracking_number)).toEqual([FIRST_BOX, SECOND_BOX]);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Each package's journey, through the page: the timeline shows the events newest first.
    await addEvent(FIRST_BOX, { status: 'Out for delivery', location: 'Portland, ME', eta: '2030-01-02' });
    await box(FIRST_BOX).getByText('Jan 2, 2030').waitFor();
    await addEvent(FIRST_BOX, { status: 'Delivered', location: 'Portland, ME', description: 'Front desk' });
    const timeline = box(FIRST_BOX).getByRole('list', { name: /Tracking events/ });
    await timeline.getByText('Front desk').waitFor();
    const items = await timeline.getByRole('listitem').allInnerTexts();
    expect(items[0]).toContain('Delivered');
    expect(items[1]).toContain('Out for delivery');
    await box(FIRST_BOX).getByRole('heading').getByText('Delivered', { exact: true }).waitFor();
    // A delivered package takes no more events; the order waits for the other one.
    expect(
      await box(FIRST_BOX)
        .getByRole('button', { name: /^Add tracking event/ })
        .count(),
    ).toBe(0);
    await badge('shipped').waitFor();
    await screenshot(page, 'order-journey-one-delivered');

    await addEvent(SECOND_BOX, { status: 'Delivered', location: 'Portland, ME' });
    await badge('delivered').waitFor();
    expect(await shipments().getByRole('button', { name: 'Add package' }).count()).toBe(0);
    const delivered = await partnerOrder(server, partner.apiKey, orderId);
    expect(delivered).toMatchObject({ status: 'delivered' });
    expect(delivered.shipments.map((s: { status: string }) => s.status)).toEqual(['delivered', 'delivered']);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('when staff record a delivery exception, then the order is on hold waiting on the partner and the panel says so', async () => {
    const orderId = await newOrder();
    await ship(orderId, HELD_BOX);
    await addEvent(HELD_BOX, { status: 'Delivery exception', location: 'Memphis, TN', description: 'Address not found' });

    const hold = page.getByRole('region', { name: /^On hold/ });
    await hold.waitFor();
    await hold.getByText('Delivery exception', { exact: true }).first().waitFor();
    await shipments().getByText('A delivery exception has put this order on hold').waitFor();
    await box(HELD_BOX).getByRole('heading').getByText('Delivery exception', { exact: true }).waitFor();
    await box(HELD_BOX).getByText('Address not found').waitFor();
    const order = await partnerOrder(server, partner.apiKey, orderId);
    expect(order).toMatchObject({ status: 'on_hold', hold: { reason_code: 'delivery_exception', waiting_on: 'partner' } });
    await screenshot(page, 'order-journey-exception');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });
});
