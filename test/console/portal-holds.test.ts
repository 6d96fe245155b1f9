import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareToOrder } from '../faults/partner-server.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { createPartner } from '../instances/support.js';
import { acceptInvitation, inviteWithCli, portalApi, portalNav, portalNavigate, portalSignIn } from './portal-support.js';
import {
  launchChromium,
  openPage,
  partnerOrder,
  placeOrder,
  seriousAxeViolations,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const CLINIC = 'Bayside Family Practice';
const DEVELOPER = { email: 'dee.developer@bayside.example', name: 'Dee Developer' };
const VIEWER = { email: 'val.viewer@bayside.example', name: 'Val Viewer' };

/**
 * "Needs your answer" in a real browser (issue 29): a developer puts a sandbox order on hold from the
 * sandbox page, finds it under "Needs your answer" with its reason explained, answers it, and it
 * moves to "waiting on the pharmacy"; a viewer reads the same list without a form.
 */
describe('the portal’s "Needs your answer": a sandbox hold answered by a developer, read by a viewer', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let developer: Page;
  let viewer: Page;
  let apiKey = '';
  let orderId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    const partner = await createPartner(server, CLINIC);
    apiKey = partner.apiKey;
    const parties = await prepareToOrder(server, partner);
    orderId = await placeOrder(server, apiKey, { clinic: { clinicId: partner.clinicId }, ...parties });
    const developerLink = await inviteWithCli(server, partner.clinicId, DEVELOPER.email, 'developer');
    const viewerLink = await inviteWithCli(server, partner.clinicId, VIEWER.email, 'viewer');
    developer = await openPage(browser, server);
    await acceptInvitation(developer, developerLink, DEVELOPER.name);
    await portalSignIn(developer, DEVELOPER.email);
    viewer = await openPage(browser, server);
    await acceptInvitation(viewer, viewerLink, VIEWER.name);
    await portalSignIn(viewer, VIEWER.email);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const orderCard = (page: Page) => page.getByRole('article', { name: `Order ${orderId}` });

  it('when the developer puts a sandbox order on hold for a prescription clarification, then it is under "Needs your answer" with its reason explained and the navigation counts it', async () => {
    await portalNavigate(developer, 'Sandbox');
    const row = developer.getByRole('row').filter({ hasText: orderId });
    await row.getByRole('button', { name: 'Put on hold' }).click();
    const form = developer.getByRole('form', { name: `Put order ${orderId} on hold` });
    await form.getByLabel('Reason').selectOption('prescription_clarification');
    await form.getByLabel('The pharmacy’s message (optional)').fill('Which strength: 0.25 mg or 0.5 mg?');
    await form.getByRole('button', { name: 'Put on hold' }).click();
    await row.getByText('on_hold', { exact: true }).waitFor();
    await developer.getByText(`Order ${orderId} is on hold, waiting on your answer`).waitFor();
    expect((await partnerOrder(server, apiKey, orderId)).status).toBe('on_hold');
    await row.getByRole('button', { name: 'Resume' }).waitFor();
    expect(await seriousAxeViolations(developer)).toEqual([]);

    await portalNavigate(developer, 'Needs your answer');
    await portalNav(developer).getByText('1 waiting on your answer').waitFor();
    const waiting = developer.getByRole('region', { name: /Waiting on your answer/ });
    const card = waiting.getByRole('article', { name: `Order ${orderId}` });
    // The pharmacy's message, among the order's facts (it is in the hold's history too).
    await card.getByRole('definition').filter({ hasText: 'Which strength: 0.25 mg or 0.5 mg?' }).waitFor();
    const reasons = await portalApi(developer, server, 'GET', '/api/portal/hold-reasons');
    const catalog = reasons.body.data.find((r: { code: string }) => r.code === 'prescription_clarification');
    await card.getByRole('definition').filter({ hasText: catalog.reason }).waitFor();
    await card.getByRole('definition').filter({ hasText: catalog.answer }).waitFor();
    expect(await seriousAxeViolations(developer)).toEqual([]);
  });

  it('when a viewer opens "Needs your answer", then they read the held order and its reason but get no answer form', async () => {
    await portalNavigate(viewer, 'Needs your answer');
    const card = orderCard(viewer);
    // The pharmacy's message, among the order's facts (it is in the hold's history too).
    await card.getByRole('definition').filter({ hasText: 'Which strength: 0.25 mg or 0.5 mg?' }).waitFor();
    await viewer.getByText('You have read-only access (viewer)').waitFor();
    expect(await card.getByRole('form').count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Send answer' }).count()).toBe(0);
    // Sent by hand, the answer is refused.
    const refused = await portalApi(viewer, server, 'POST', `/api/portal/holds/${orderId}/response`, { message: 'By hand' });
    expect(refused.status).toBe(403);
  });

  it('when the developer answers, then the order moves to "Answered — waiting on the pharmacy" with the answer in its history', async () => {
    const form = developer.getByRole('form', { name: `Answer for order ${orderId}` });
    await form.getByLabel('Your answer').fill('0.5 mg weekly, as written on page 2.');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await developer.getByText(`Your answer is sent: order ${orderId} now waits on the pharmacy.`).waitFor();
    const answered = developer.getByRole('region', { name: /Answered — waiting on the pharmacy/ });
    const card = answered.getByRole('article', { name: `Order ${orderId}` });
    await card.waitFor();
    expect(await card.getByRole('form').count()).toBe(0);
    await card.getByText('History of this hold (2)').click();
    await card.getByText('0.5 mg weekly, as written on page 2.').waitFor();
    await developer
      .getByRole('region', { name: /Waiting on your answer/ })
      .getByText('No order waits on your answer.')
      .waitFor();
    expect(await portalNav(developer).getByText('waiting on your answer').count()).toBe(0);
    const order = await partnerOrder(server, apiKey, orderId);
    expect(order.hold).toMatchObject({ waiting_on: 'pharmacy' });
    expect(await seriousAxeViolations(developer)).toEqual([]);
  });

  it('when the developer resumes the order from the sandbox page, then it is back to pending and off the list', async () => {
    await portalNavigate(developer, 'Sandbox');
    const row = developer.getByRole('row').filter({ hasText: orderId });
    await row.getByRole('button', { name: 'Resume' }).click();
    await row.getByText('pending', { exact: true }).waitFor();
    await portalNavigate(developer, 'Needs your answer');
    await developer.getByText('No order on hold waits on the pharmacy.').waitFor();
    expect(await orderCard(developer).count()).toBe(0);
  });
});
