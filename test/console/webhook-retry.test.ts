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
  screenshot,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

describe('webhook deliveries: Retry on a failed one', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // One attempt, no retries: a delivery fails as soon as its only attempt does. A development
    // server on 127.0.0.1 may call a receiver on 127.0.0.1.
    [server, browser, receiver] = await Promise.all([
      startConsoleServer({ WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '2000' }),
      launchChromium(),
      WebhookReceiver.start(),
    ]);
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
  });
  afterAll(async () => {
    await receiver.stop();
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  /** The status of every delivery, through the operator API (this file's server has one clinic). */
  const deliveryStatuses = async (): Promise<string[]> => {
    const answer = await call(server, 'GET', '/api/admin/webhook-deliveries', { operator: true });
    return dataOf(answer, 'list deliveries').items.map((delivery: { status: string }) => delivery.status);
  };

  it('when a delivery failed against a refusing receiver, then Retry sends it again and the console shows it delivered', async () => {
    // The receiver's port refuses connections while the order's event is sent.
    await receiver.stop();
    const partner = await createOrderingPartner(server);
    const { secret } = dataOf(
      await call(server, 'POST', '/api/external/webhook', {
        apiKey: partner.clinic.apiKey,
        body: { clinic_id: partner.clinic.clinicId, webhook_url: receiver.url() },
      }),
      'register webhook',
    );
    await placeOrder(server, partner.clinic.apiKey, partner);
    await eventually(async () => (await deliveryStatuses()).join() === 'failed');
    await receiver.restart();

    await navigate(page, 'Webhooks');
    await page.getByLabel('Status').selectOption('failed');
    const row = page.getByRole('row').filter({ hasText: 'order.created' });
    await row.getByText('failed', { exact: true }).waitFor();
    await screenshot(page, 'webhooks-failed');
    await row.getByRole('button', { name: 'Retry' }).click();

    const [request] = await receiver.waitFor(1);
    expect(WebhookReceiver.verify(secret, request!)).toMatchObject({ type: 'order.created' });
    await eventually(async () => (await deliveryStatuses()).join() === 'delivered');
    await page.getByLabel('Status').selectOption('delivered');
    await row.getByText('delivered', { exact: true }).waitFor();
    await row.getByRole('button', { name: /^Attempts/ }).click();
    // The attempts: the refused one, then the retried one.
    await page.getByRole('columnheader', { name: 'Duration' }).waitFor();
    const attempts = page.getByRole('table').last().getByRole('row');
    expect(await attempts.count()).toBe(3);
    await screenshot(page, 'webhooks-delivered');
  });
});
