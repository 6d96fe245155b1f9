import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { TEST_FORMULARY } from '../helpers/factories.js';
import { killServerProcesses, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { WebhookReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.js';
import { createOrderingPartner, createPractitionerAndPatient, dataOf } from '../faults/partner-server.js';
import { call, createPartner, OPERATOR_TOKEN } from '../instances/support.js';
import { acceptInvitation, inviteWithCli, portalApi, portalNavigate, portalSignIn } from './portal-support.js';
import {
  launchChromium,
  openPage,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

/** The README's picture of the portal, written when this is set (a tracked file changes). */
const README_SCREENSHOT = process.env.PORTAL_README_SCREENSHOT === '1';
const README_IMAGE = path.resolve(import.meta.dirname, '../../docs/images/portal-deliveries.png');
/** test/helpers/clock-ahead.mjs: a second server on the same database, two hours on, instead of waiting. */
const CLOCK_AHEAD = pathToFileURL(path.resolve(import.meta.dirname, '../helpers/clock-ahead.mjs')).href;
const TWO_HOURS_MS = 2 * 60 * 60_000;
const CARRIERS = '/api/external/carriers';

const CLINIC = 'Lakeside Pediatrics';
const DEVELOPER = { email: 'devon.dev@lakeside.example', name: 'Devon Developer' };

/**
 * A developer's day in the portal, in a real browser (issue 22's Done-when): keys made and rolled
 * (the old key refused once its overlap is over), a failed delivery found and resent, a sandbox
 * order moved to shipped and its `order.fulfilled` received, a failed request found by its id,
 * another clinic's records out of reach, and axe on every page.
 */
describe('the portal for a developer: keys, webhooks, deliveries, request log, sandbox', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let page: Page;
  let clinicId = '';
  /** The key the developer made in the portal (after the roll: its successor). */
  let apiKey = '';
  let webhookSecret = '';
  let parties: { clinic: { clinicId: string }; practitionerId: string; patientId: string };
  let orderId = '';

  beforeAll(async () => {
    // One attempt per delivery: one refused by the receiver is failed at once.
    [server, browser, receiver] = await Promise.all([
      startConsoleServer({ WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '2000' }),
      launchChromium(),
      WebhookReceiver.start(),
    ]);
    ({ clinicId } = await createPartner(server, CLINIC));
    dataOf(
      await call(server, 'POST', `/api/admin/clinics/${clinicId}/medications`, {
        operator: true,
        body: { name: TEST_FORMULARY[0] },
      }),
      'add medication',
    );
    const link = await inviteWithCli(server, clinicId, DEVELOPER.email, 'developer');
    page = await openPage(browser, server);
    await acceptInvitation(page, link, DEVELOPER.name);
    await portalSignIn(page, DEVELOPER.email);
  });
  afterAll(async () => {
    await receiver.stop();
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  it('when the developer makes a key and rolls it with an hour of overlap, then the old key works until the hour is over and is refused after', async () => {
    await portalNavigate(page, 'API keys');
    await page.getByRole('button', { name: 'New API key' }).click();
    await page.getByRole('form', { name: 'New API key' }).getByRole('button', { name: 'Create API key' }).click();
    const oldKey = await page.getByRole('textbox', { name: 'API key', exact: true }).inputValue();
    expect(oldKey).toMatch(/^dev_/);
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row').filter({ hasText: oldKey.slice(-4) });
    await row.waitFor();
    expect((await call(server, 'GET', CARRIERS, { apiKey: oldKey })).status).toBe(200);

    await row.getByRole('button', { name: 'Roll' }).click();
    await row.getByLabel('Old key keeps working').selectOption({ label: '1 hour' });
    await row.getByRole('button', { name: 'Roll key' }).click();
    await page.getByText('keeps working until').waitFor();
    apiKey = await page.getByRole('textbox', { name: 'API key', exact: true }).inputValue();
    expect(apiKey).not.toBe(oldKey);
    await page.getByRole('button', { name: 'Done' }).click();

    // Within the hour both work; a server two hours on refuses the old one only.
    for (const key of [oldKey, apiKey]) expect((await call(server, 'GET', CARRIERS, { apiKey: key })).status).toBe(200);
    const later: ServerProcess = await startServerProcess({
      ADMIN_TOKEN: OPERATOR_TOKEN,
      ...server.database.env,
      RUN_WORKER: 'false',
      RATE_LIMIT_PER_MINUTE: '1000000',
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${CLOCK_AHEAD}`].filter(Boolean).join(' '),
      CLOCK_AHEAD_MS: String(TWO_HOURS_MS),
    });
    try {
      const refused = await call(later, 'GET', CARRIERS, { apiKey: oldKey });
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: 'Unauthorized: API key has expired' });
      expect((await call(later, 'GET', CARRIERS, { apiKey })).status).toBe(200);
    } finally {
      await later.stop();
    }
  });

  it('when a delivery failed against a refusing receiver, then the developer finds it among the failed ones, reads its attempts, and Resend delivers it', async () => {
    await portalNavigate(page, 'Webhooks');
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await form.getByLabel('URL').fill(receiver.url());
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    webhookSecret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByText(new URL(receiver.url()).host).first().waitFor();

    receiver.respondWith({ status: 500, body: 'receiver down' });
    parties = { clinic: { clinicId }, ...(await createPractitionerAndPatient(server, { clinicId, apiKey })) };
    orderId = await placeOrder(server, apiKey, parties);
    const [refused] = await receiver.waitFor(1);
    expect(JSON.parse(refused!.body)).toMatchObject({ type: 'order.created' });
    await eventually(async () => (await deliveries('failed')).length === 1);
    receiver.respondWith({ status: 200 });

    await portalNavigate(page, 'Deliveries');
    await page.getByLabel('Status').selectOption('failed');
    const row = page.getByRole('row').filter({ hasText: 'order.created' });
    await row.getByText('failed', { exact: true }).waitFor();
    await row.getByRole('button', { name: /^Attempts/ }).click();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    await attempts.getByRole('row').filter({ hasText: '500' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (README_SCREENSHOT) {
      mkdirSync(path.dirname(README_IMAGE), { recursive: true });
      copyFileSync(await screenshot(page, 'portal-deliveries'), README_IMAGE);
    }

    await row.getByRole('button', { name: 'Resend' }).click();
    await page.getByText('Queued for an attempt now').waitFor();
    const [, resent] = await receiver.waitFor(2);
    expect(WebhookReceiver.verify(webhookSecret, resent!)).toMatchObject({
      type: 'order.created',
      data: { medication_request_id: orderId },
    });
    await eventually(async () => (await deliveries('delivered')).length === 1);
    await page.getByLabel('Status').selectOption('delivered');
    await page.getByRole('row').filter({ hasText: 'order.created' }).getByText('delivered', { exact: true }).waitFor();
  });

  it('when the developer moves a sandbox order to shipped, one click per step, then the clinic\u2019s receiver gets order.fulfilled, signed, with the tracking number', async () => {
    await portalNavigate(page, 'Sandbox');
    const row = page.getByRole('row').filter({ hasText: orderId });
    // One click per step, as the sandbox offers the next ones: pending → processing → shipped.
    await row.getByText('pending', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Move to processing' }).click();
    await row.getByText('processing', { exact: true }).waitFor();
    // A move to processing sends no event, and the page says so (it once promised one).
    await page.getByText(`Order ${orderId} is now processing. This move sends no webhook event`).waitFor();
    await row.getByRole('button', { name: 'Move to shipped' }).click();
    await row.getByText('shipped', { exact: true }).waitFor();
    await page.getByText(`Order ${orderId} is now shipped: its webhook event order.fulfilled is on its way.`).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    const fulfilledEvent = () => receiver.received.map(verified).find((event) => event?.type === 'order.fulfilled');
    await eventually(async () => fulfilledEvent() !== undefined);
    const fulfilled = fulfilledEvent();
    expect(fulfilled).toMatchObject({ type: 'order.fulfilled', data: { medication_request_id: orderId } });
    const order = dataOf(await call(server, 'GET', `/api/external/medication-order/${orderId}`, { apiKey }), 'get order');
    expect(order.status).toBe('shipped');
    expect(order.tracking_number).toBeTruthy();
    await row.getByText(order.tracking_number).waitFor();
  });

  it('when a partner request failed, then its X-Request-Id pasted into the request log finds it with its error code and message', async () => {
    const failed = await fetch(`${server.baseUrl}/api/external/patient`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(failed.status).toBe(400);
    const requestId = failed.headers.get('x-request-id') ?? '';
    const { error } = (await failed.json()) as { error: { code: string; message: string } };
    expect(requestId).not.toBe('');
    // The log is written after the answer: wait until the API has it, then look as a person does.
    await eventually(async () => {
      const found = await portalApi(page, server, 'GET', `/api/portal/requests?request_id=${requestId}`);
      return found.body.data.items.length === 1;
    });

    await portalNavigate(page, 'Request log');
    await page.getByLabel('Request id').fill(requestId);
    await page.getByRole('button', { name: 'Find request' }).click();
    await page.getByText('Showing the request').waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: error.code });
    // The log keeps the fields named, not the values sent (a patient's details stay out of it).
    expect(error.message).toContain('first_name');
    await row.getByText('Validation failed (invalid: first_name').waitFor();
    expect(await row.textContent()).toContain('400');
    // Only that request: the header row and its own.
    expect(await page.getByRole('table').first().getByRole('row').count()).toBe(2);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('when the developer guesses another clinic\u2019s ids in addresses and API paths, then every one is not found and nothing of that clinic shows', async () => {
    const other = await WebhookReceiver.start();
    try {
      const b = await createOrderingPartner(server, 'Other Clinic Not Yours');
      const registered = dataOf(
        await call(server, 'POST', '/api/external/webhook', {
          apiKey: b.clinic.apiKey,
          body: { clinic_id: b.clinic.clinicId, webhook_url: other.url() },
        }),
        'register webhook',
      );
      const bWebhookId: string = registered.webhook_id;
      const bOrderId = await placeOrder(server, b.clinic.apiKey, b);
      await other.waitFor(1);
      const answer = await call(server, 'GET', `/api/admin/webhook-deliveries?clinic_id=${b.clinic.clinicId}`, {
        operator: true,
      });
      const bDeliveryId: string = dataOf(answer, 'list deliveries').items[0]?.delivery_id;
      const bKeyId = (b.clinic as unknown as { apiKeyId: string }).apiKeyId;
      expect([bWebhookId, bDeliveryId, bKeyId].every(Boolean)).toBe(true);

      const guesses: [method: 'GET' | 'POST', path: string, body?: unknown][] = [
        ['GET', `/api/portal/deliveries/${bDeliveryId}`],
        ['POST', `/api/portal/deliveries/${bDeliveryId}/resend`, {}],
        ['POST', `/api/portal/keys/${bKeyId}/roll`, {}],
        ['POST', `/api/portal/keys/${bKeyId}/revoke`, {}],
        ['POST', `/api/portal/webhooks/${bWebhookId}/test`, {}],
        ['POST', `/api/portal/webhooks/${bWebhookId}/disable`, {}],
        ['POST', `/api/portal/webhooks/${bWebhookId}/rotate-secret`, {}],
        ['POST', `/api/portal/sandbox/orders/${bOrderId}/advance`, { status: 'shipped' }],
      ];
      for (const [method, guessed, body] of guesses) {
        const answer = await portalApi(page, server, method, guessed, body);
        expect({ guessed, status: answer.status }).toEqual({ guessed, status: 404 });
        expect(JSON.stringify(answer.body)).not.toContain(b.clinic.clinicId);
      }
      // The lists filtered by the other clinic's ids show none of its records.
      const byWebhook = await portalApi(page, server, 'GET', `/api/portal/deliveries?webhook_id=${bWebhookId}`);
      expect(byWebhook.status === 404 || byWebhook.body.data.items.length === 0).toBe(true);
      const byRequest = await portalApi(page, server, 'GET', `/api/portal/requests?route=/api/external/medication-order`);
      expect(JSON.stringify(byRequest.body)).not.toContain(b.clinic.clinicId);

      // The pages' addresses with those ids: nothing of the other clinic.
      await page.goto(`/portal/deliveries?webhook_id=${bWebhookId}`);
      await page.getByRole('heading', { level: 1, name: 'Deliveries' }).waitFor();
      await page.locator('.loading').first().waitFor({ state: 'detached' });
      expect(await page.getByText(new URL(other.url()).host).count()).toBe(0);
      expect(await page.getByText(bOrderId).count()).toBe(0);
      await page.goto('/portal/sandbox');
      await page.getByRole('heading', { level: 1, name: 'Sandbox' }).waitFor();
      await page.locator('.loading').first().waitFor({ state: 'detached' });
      await page.getByText(orderId).waitFor();
      expect(await page.getByText(bOrderId).count()).toBe(0);
      // B's order is untouched.
      expect(
        dataOf(await call(server, 'GET', `/api/external/medication-order/${bOrderId}`, { apiKey: b.clinic.apiKey }), 'get')
          .status,
      ).not.toBe('shipped');
    } finally {
      await other.stop();
    }
  });

  it('when the developer opens every page of the portal, then axe finds no serious or critical violation on any, the browser no CSP violation, and none scrolls sideways from 768 to 1280 pixels', async () => {
    const pages: [link: string, open?: (page: Page) => Promise<void>][] = [
      ['Overview'],
      ['Needs your answer'],
      ['API keys', (opened) => opened.getByRole('button', { name: 'New API key' }).click()],
      ['Webhooks', (opened) => opened.getByRole('button', { name: 'Rotate secret' }).first().click()],
      [
        'Deliveries',
        (opened) =>
          opened
            .getByRole('button', { name: /^Attempts/ })
            .first()
            .click(),
      ],
      ['Request log'],
      ['Sandbox'],
      ['Account', (opened) => opened.getByRole('button', { name: 'Turn on two-step sign-in' }).click()],
    ];
    const cspReports: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspReports.push(message.text());
    });
    /** How many pixels the page is wider than the window at `width` (0: no sideways scroll). */
    const overflowAt = async (width: number) => {
      await page.setViewportSize({ width, height: 800 });
      return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    };
    for (const [link, open] of pages) {
      await page.setViewportSize({ width: 1280, height: 800 });
      await portalNavigate(page, link);
      expect({ link, violations: await seriousAxeViolations(page) }).toEqual({ link, violations: [] });
      for (const width of [1280, 768])
        expect({ link, width, overflow: await overflowAt(width) }).toEqual({ link, width, overflow: 0 });
      await page.setViewportSize({ width: 1280, height: 800 });
      if (open) {
        await open(page);
        await page.locator('.loading').first().waitFor({ state: 'detached' });
        expect({ link, opened: true, violations: await seriousAxeViolations(page) }).toEqual({
          link,
          opened: true,
          violations: [],
        });
      }
    }
    expect(cspReports).toEqual([]);
  });

  /** The clinic's deliveries of that status, through the portal API with the developer's session. */
  async function deliveries(status: string): Promise<unknown[]> {
    return (await portalApi(page, server, 'GET', `/api/portal/deliveries?status=${status}`)).body.data.items;
  }

  /** The event a request carried when its signature checks out with the endpoint's secret; undefined otherwise. */
  function verified(request: ReceivedRequest): { type: string } | undefined {
    try {
      return WebhookReceiver.verify(webhookSecret, request);
    } catch {
      return undefined;
    }
  }
});
