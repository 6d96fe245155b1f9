import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { patientBody } from '../helpers/fixtures.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { createOrderingPartner, dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  openPage,
  pageReady,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

/** The README's picture of the order queue, written when this is set (a tracked file changes). */
const README_SCREENSHOT = process.env.CONSOLE_README_SCREENSHOT === '1';
const README_IMAGE = path.resolve(import.meta.dirname, '../../docs/images/console-orders.png');

/** The narrowest and widest screens the console is made for. */
const WIDTHS = [1280, 768] as const;

interface ConsolePage {
  name: string;
  path: () => string;
  /** The page's <h1>; any heading when it names a record. */
  heading?: string;
  /** Opens what the page hides until asked (a form, a delivery's attempts), so that it is scanned too. */
  open?: (page: Page) => Promise<void>;
}

/** Clicks the (first) button of that name and waits for the form it opens. */
const openForm = (name: string) => async (page: Page) => {
  await page.getByRole('button', { name }).first().click();
  await page.getByRole('form', { name }).waitFor();
};

describe('every console page: axe-core, CSP and widths from 768 to 1280 pixels', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let receiver: WebhookReceiver;
  let clinicId = '';
  let shippedOrderId = '';
  let heldOrderId = '';
  let pendingOrderId = '';
  /** Messages of the browser about the Content-Security-Policy: a page needing what it forbids. */
  let cspReports: string[] = [];

  beforeAll(async () => {
    [server, browser, receiver] = await Promise.all([
      // One attempt per delivery: the refused ones are failed at once, for the Webhooks page.
      startConsoleServer({ WEBHOOK_RETRY_SCHEDULE: '0' }),
      launchChromium(),
      WebhookReceiver.start(),
    ]);
    ({ clinicId, shippedOrderId, heldOrderId, pendingOrderId } = await seedQueue(server, receiver));
  });
  afterAll(async () => {
    await receiver.stop();
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });
  afterEach(async () => {
    await page.context().close();
  });

  const watch = (opened: Page): Page => {
    cspReports = [];
    opened.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspReports.push(message.text());
    });
    return opened;
  };

  /** Scans the page as it is at each width: axe, CSP reports, no sideways scrolling; a screenshot of each. */
  const check = async (name: string): Promise<void> => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      expect(await seriousAxeViolations(page), `${name} at ${width} px`).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
      await screenshot(page, `${name}-${width}`);
    }
    expect(cspReports, name).toEqual([]);
  };

  it('when the sign-in page is scanned, then it has no serious or critical violation', async () => {
    page = watch(await openPage(browser, server));
    await page.goto('/console');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();

    await check('sign-in');
  });

  const PAGES: ConsolePage[] = [
    {
      name: 'dashboard',
      path: () => '/console/dashboard',
      heading: 'Dashboard',
      // Every table behind a chart, opened.
      open: async (page) => {
        for (const summary of await page.getByText(/as a table$/).all()) await summary.click();
        await page.getByRole('columnheader', { name: '90th percentile (h)' }).waitFor();
      },
    },
    { name: 'orders', path: () => '/console/orders', heading: 'Orders' },
    { name: 'order', path: () => `/console/orders/${shippedOrderId}` },
    // A pending order, its Put on hold form open; an order on hold, its hold and Resume first.
    { name: 'order-pending', path: () => `/console/orders/${pendingOrderId}`, open: openForm('Put on hold') },
    { name: 'order-on-hold', path: () => `/console/orders/${heldOrderId}` },
    { name: 'holds', path: () => '/console/holds', heading: 'Holds' },
    { name: 'clinics', path: () => '/console/clinics', heading: 'Clinics', open: openForm('New clinic') },
    // The clinic's portal users, with the invitation form open.
    { name: 'clinic', path: () => `/console/clinics/${clinicId}`, open: openForm('Invite a portal user') },
    { name: 'carriers', path: () => '/console/carriers', heading: 'Carriers', open: openForm('New carrier') },
    {
      name: 'webhooks',
      path: () => '/console/webhooks',
      heading: 'Webhooks',
      open: async (page) => {
        await page
          .getByRole('button', { name: /^Attempts/ })
          .first()
          .click();
        await page.getByRole('columnheader', { name: 'Duration' }).waitFor();
      },
    },
    { name: 'audit', path: () => '/console/audit', heading: 'Audit' },
    { name: 'staff', path: () => '/console/staff', heading: 'Staff', open: openForm('New staff member') },
    {
      name: 'account',
      path: () => '/console/account',
      heading: 'Account',
      // The enrollment's secret and code field (started, never confirmed: sign-in stays a password only).
      open: async (page) => {
        await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
        await page.getByRole('form', { name: 'Confirm two-step sign-in' }).waitFor();
      },
    },
  ];

  for (const consolePage of PAGES) {
    it(`when the ${consolePage.name} page is scanned, then it has no serious or critical violation`, async () => {
      page = watch(await openPage(browser, server));
      await signIn(page, FIRST_ADMIN);
      await page.goto(consolePage.path());
      await pageReady(page, consolePage.heading);

      await check(consolePage.name);
      if (consolePage.open) {
        await consolePage.open(page);
        await check(`${consolePage.name}-open`);
      }
      if (consolePage.name === 'orders' && README_SCREENSHOT) {
        await page.setViewportSize({ width: 1280, height: 800 });
        mkdirSync(path.dirname(README_IMAGE), { recursive: true });
        copyFileSync(await screenshot(page, 'readme-orders'), README_IMAGE);
      }
    });
  }

  it('when staff use only the keyboard, then they sign in and reach a page through the navigation', async () => {
    page = watch(await openPage(browser, server));
    await page.goto('/console');
    await page.getByLabel('Email').waitFor();

    await page.keyboard.press('Tab');
    await page.keyboard.type(FIRST_ADMIN.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(FIRST_ADMIN.password);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const clinics = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clinics' });
    for (let tabs = 0; tabs < 10 && !(await clinics.evaluate((link) => link === document.activeElement)); tabs++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');

    await pageReady(page, 'Clinics');
  });
});

/**
 * A queue worth looking at, made through the APIs: two clinics, patients, orders in every status,
 * a staff member, and failed webhook deliveries (to a receiver that is down).
 */
async function seedQueue(
  server: ConsoleServer,
  receiver: WebhookReceiver,
): Promise<{ clinicId: string; shippedOrderId: string; heldOrderId: string; pendingOrderId: string }> {
  const riverside = await createOrderingPartner(server, 'Riverside Family Clinic');
  const lakeside = await createOrderingPartner(server, 'Lakeside Telehealth');
  await receiver.stop();
  dataOf(
    await call(server, 'POST', '/api/external/webhook', {
      apiKey: lakeside.clinic.apiKey,
      body: { clinic_id: lakeside.clinic.clinicId, webhook_url: receiver.url() },
    }),
    'register webhook',
  );
  dataOf(
    await call(server, 'POST', '/api/admin/staff', {
      operator: true,
      body: {
        email: 'parker@pharmacy.example',
        name: 'Parker Pharmacist',
        role: 'pharmacist',
        password: 'pharmacist passphrase 2026',
      },
    }),
    'create staff',
  );

  const patients = [
    { setup: riverside, name: ['Grace', 'Hopper'] },
    { setup: riverside, name: ['Alan', 'Turing'] },
    { setup: lakeside, name: ['Katherine', 'Johnson'] },
    { setup: lakeside, name: ['Edsger', 'Dijkstra'] },
    { setup: riverside, name: ['Barbara', 'Liskov'] },
    { setup: lakeside, name: ['Frances', 'Allen'] },
  ];
  const orders: string[] = [];
  for (const { setup, name } of patients) {
    const patientId: string = dataOf(
      await call(server, 'POST', '/api/external/patient', {
        apiKey: setup.clinic.apiKey,
        body: patientBody(setup.clinic.clinicId, {
          first_name: name[0],
          last_name: name[1],
          practitioner_id: setup.practitionerId,
        }),
      }),
      'create patient',
    ).patient_id;
    orders.push(await placeOrder(server, setup.clinic.apiKey, { ...setup, patientId }));
  }
  const move = async (orderId: string, body: Record<string, string>) =>
    dataOf(
      await call(server, 'POST', `/api/admin/medication-requests/${orderId}/status`, { operator: true, body }),
      `order to ${body.status ?? ''}`,
    );
  const [delivered = '', shipped = '', processing = '', cancelled = '', pending = '', held = ''] = orders;
  for (const orderId of [delivered, shipped, processing]) await move(orderId, { status: 'processing' });
  for (const orderId of [delivered, shipped]) await move(orderId, { status: 'shipped', tracking_number: '794612345678' });
  await move(delivered, { status: 'delivered' });
  await move(cancelled, { status: 'cancelled' });
  dataOf(
    await call(server, 'POST', `/api/admin/medication-requests/${held}/hold`, {
      operator: true,
      body: { reason_code: 'other', waiting_on: 'partner', message: 'Please send the prescriber\u2019s licence number.' },
    }),
    'hold',
  );

  const failed = async () => {
    const answer = await call(server, 'GET', '/api/admin/webhook-deliveries?status=failed', { operator: true });
    return dataOf(answer, 'list deliveries').items.length;
  };
  await eventually(async () => (await failed()) >= 2);
  return { clinicId: riverside.clinic.clinicId, shippedOrderId: shipped, heldOrderId: held, pendingOrderId: pending };
}
