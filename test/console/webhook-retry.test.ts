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
  pageReady,
  placeOrder,
  screenshot,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

describe('webhook deliveries: Retry on a failed one, Recover on an endpoint', () => {
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

  it('when one of a clinic\u2019s two endpoints was down, then the page tells them apart by host, names each delivery\u2019s order, and Recover sends its failed delivery again', async () => {
    const down = await WebhookReceiver.start();
    const up = await WebhookReceiver.start();
    try {
      await down.stop();
      const partner = await createOrderingPartner(server, 'Twin Endpoints Clinic');
      const register = async (url: string) =>
        dataOf(
          await call(server, 'POST', '/api/external/webhook', {
            apiKey: partner.clinic.apiKey,
            body: { clinic_id: partner.clinic.clinicId, webhook_url: url },
          }),
          'register webhook',
        );
      await register(down.url());
      await register(up.url());
      const orderId = await placeOrder(server, partner.clinic.apiKey, partner);
      const statuses = async () => {
        const answer = await call(server, 'GET', `/api/admin/webhook-deliveries?clinic_id=${partner.clinic.clinicId}`, {
          operator: true,
        });
        return dataOf(answer, 'list deliveries')
          .items.map((delivery: { status: string }) => delivery.status)
          .sort()
          .join();
      };
      await eventually(async () => (await statuses()) === 'delivered,failed');
      await down.restart();

      // Loaded afresh (the page may still show the log as the last test left it).
      await page.goto('/console/webhooks');
      await pageReady(page, 'Webhooks');
      const host = (receiver: WebhookReceiver) => new URL(receiver.url()).host;
      const endpoints = page.getByRole('region', { name: 'Endpoints' });
      await endpoints
        .getByRole('row')
        .filter({ hasText: host(down) })
        .waitFor();
      await endpoints
        .getByRole('row')
        .filter({ hasText: host(up) })
        .waitFor();
      const deliveries = page.getByRole('region', { name: 'Deliveries' });
      const failedRow = deliveries
        .getByRole('row')
        .filter({ hasText: host(down) })
        .filter({ hasText: 'failed' });
      await failedRow.getByRole('link', { name: orderId.slice(-8) }).waitFor();
      await deliveries
        .getByRole('row')
        .filter({ hasText: host(up) })
        .getByRole('link', { name: orderId.slice(-8) })
        .waitFor();

      await endpoints.getByRole('button', { name: `Recover ${down.url()}` }).click();
      await endpoints.getByText(`${host(down)}: 1 delivery from the last 24 hours queued for an attempt now.`).waitFor();
      const [request] = await down.waitFor(1);
      expect(JSON.parse(request!.body)).toMatchObject({ type: 'order.created', data: { medication_request_id: orderId } });
      await eventually(async () => (await statuses()) === 'delivered,delivered');
      await screenshot(page, 'webhooks-recovered');
    } finally {
      await Promise.all([down.stop(), up.stop()]);
    }
  });
});
