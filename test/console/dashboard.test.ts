import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { createOrderingPartner, dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  navigate,
  openPage,
  placeOrder,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

/**
 * The dashboard drawn from a database seeded through the APIs (docs/console.md#dashboard): four
 * orders today (pending, processing, shipped, cancelled), and a clinic's webhook endpoint that
 * answered 410 Gone to its first delivery and was disabled.
 */
describe('the dashboard in the browser', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let gone: WebhookReceiver;

  beforeAll(async () => {
    [server, browser, gone] = await Promise.all([
      startConsoleServer({ WEBHOOK_RETRY_SCHEDULE: '0' }),
      launchChromium(),
      WebhookReceiver.start([{ status: 410 }]),
    ]);
    const shop = await createOrderingPartner(server, 'Riverside Family Clinic');
    dataOf(
      await call(server, 'POST', '/api/external/webhook', {
        apiKey: shop.clinic.apiKey,
        body: { clinic_id: shop.clinic.clinicId, webhook_url: gone.url() },
      }),
      'register webhook',
    );
    const orders: string[] = [];
    for (let i = 0; i < 4; i++) orders.push(await placeOrder(server, shop.clinic.apiKey, shop));
    const move = async (orderId: string, body: Record<string, string>) =>
      dataOf(await call(server, 'POST', `/api/admin/medication-requests/${orderId}/status`, { operator: true, body }), 'move');
    const [, processing = '', shipped = '', cancelled = ''] = orders;
    await move(processing, { status: 'processing' });
    await move(shipped, { status: 'processing' });
    await move(shipped, { status: 'shipped', tracking_number: '794612345678' });
    await move(cancelled, { status: 'cancelled' });
    await eventually(async () => {
      const answer = await call(server, 'GET', '/api/admin/webhook-endpoints?status=disabled', { operator: true });
      return dataOf(answer, 'list endpoints').endpoints.length === 1;
    });

    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
  });
  afterAll(async () => {
    await gone.stop();
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  /** The rows of the table of the section headed `title`, opened as staff open it, cell texts each. */
  const tableOf = async (title: string): Promise<string[][]> => {
    const section = page.getByRole('region', { name: title });
    await section.getByText(/as a table$/).click();
    return section
      .locator('details table tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent.trim())));
  };

  it('when staff open the dashboard, then each of its six charts is drawn on a canvas named by its summary', async () => {
    await navigate(page, 'Dashboard');
    const charts = page.getByRole('img');

    await expect.poll(() => charts.count()).toBe(6);
    for (const chart of await charts.all()) {
      expect(await chart.getAttribute('aria-label')).toMatch(/^[A-Z].+: .+\.$/);
      // Drawn: the canvas holds pixels that are not transparent.
      const drawn = await chart.evaluate((canvas) => {
        const element = canvas as HTMLCanvasElement;
        const pixels =
          element.getContext('2d')?.getImageData(0, 0, element.width, element.height).data ?? new Uint8ClampedArray();
        return element.width > 0 && pixels.some((value, index) => index % 4 === 3 && value > 0);
      });
      expect(drawn).toBe(true);
    }
    await expect.poll(() => page.getByRole('img', { name: /^Orders per day by status: 4 orders/ }).count()).toBe(1);
  });

  it('when staff open the tables behind the charts, then they hold the seeded numbers', async () => {
    await navigate(page, 'Dashboard');

    // Summed over the days (the seed is today's, but a run may straddle midnight UTC).
    const days = await tableOf('Orders per day by status');
    const columns = [1, 2, 3, 4, 5, 6].map((column) => days.reduce((total, row) => total + Number(row[column]), 0));
    expect(columns).toEqual([1, 1, 1, 0, 1, 0]); // pending, processing, shipped, delivered, cancelled, on hold
    expect(days).toHaveLength(30);
    expect((await tableOf('Orders waiting now by age'))[0]).toEqual(['Under 1 hour', '1', '1']);
    const hours = await tableOf('Webhook deliveries per hour');
    expect(hours.reduce((total, row) => total + Number(row[1]), 0)).toBeGreaterThanOrEqual(1);
    expect(hours.reduce((total, row) => total + Number(row[2]), 0)).toBeGreaterThanOrEqual(1);
    expect(await tableOf('Webhook endpoints disabled')).toEqual([
      ['Active', '0'],
      ['Disabled', '1'],
    ]);
    const disabled = page.getByRole('table', { name: 'Disabled endpoints, most recent first' });
    await expect.poll(() => disabled.getByRole('link', { name: 'Riverside Family Clinic' }).count()).toBe(1);
    expect(await disabled.textContent()).toContain(gone.url());
  });
});
