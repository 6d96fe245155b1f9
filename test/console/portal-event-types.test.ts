import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { createPartner } from '../instances/support.js';
import { acceptInvitation, inviteWithCli, portalApi, portalNavigate, portalSignIn } from './portal-support.js';
import { launchChromium, openPage, seriousAxeViolations, startConsoleServer, type ConsoleServer } from './support.js';

const CLINIC = 'Harbor Lane Clinic';
const DEVELOPER = { email: 'tia.types@harborlane.example', name: 'Tia Types' };
const URL = 'https://hooks.harborlane.example/pharmacy';

/**
 * The event types of a webhook endpoint in the portal (issue 31, item 6): a developer restricts a new
 * endpoint to `order.delivered` with the form's checkboxes, sees it on the endpoint's card, and sets
 * it back to every event (null: types added later too).
 */
describe('the portal’s webhook event types: restricted on creation, shown, set back to all events', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    const { clinicId } = await createPartner(server, CLINIC);
    const link = await inviteWithCli(server, clinicId, DEVELOPER.email, 'developer');
    page = await openPage(browser, server);
    await acceptInvitation(page, link, DEVELOPER.name);
    await portalSignIn(page, DEVELOPER.email);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const card = () => page.getByRole('region', { name: URL });
  const eventTypesOf = async () => {
    const answer = await portalApi(page, server, 'GET', '/api/portal/webhooks');
    expect(answer.status).toBe(200);
    const webhooks: { url: string; event_types: string[] | null }[] = answer.body.data.webhooks;
    return webhooks.find((w) => w.url === URL)?.event_types;
  };

  it('when the developer adds an endpoint with only order.delivered checked, then it is saved so and its card lists it', async () => {
    await portalNavigate(page, 'Webhooks');
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await form.getByLabel('URL').fill(URL);
    const types = form.getByRole('group', { name: 'Event types' });
    const all = types.getByLabel('All events, including later ones');
    expect(await all.isChecked()).toBe(true);
    await all.uncheck();
    // Unchecking "All events" starts from every current type checked: uncheck all but order.delivered.
    const boxes = types.getByRole('checkbox');
    for (const box of await boxes.all()) {
      const name = (await box.evaluate((input) => input.parentElement?.textContent ?? '')).trim();
      if (name !== 'order.delivered') await box.uncheck();
    }
    expect(await types.getByLabel('order.delivered').isChecked()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: 'Done' }).click();

    await card()
      .getByRole('definition')
      .filter({ hasText: /^order\.delivered$/ })
      .waitFor();
    expect(await eventTypesOf()).toEqual(['order.delivered']);
  });

  it('when the developer edits the endpoint’s event types back to all events, then null is saved and the card says "All events"', async () => {
    await card().getByRole('button', { name: 'Edit event types' }).click();
    const form = card().getByRole('form', { name: 'Edit event types' });
    const types = form.getByRole('group', { name: 'Event types' });
    // The form opens on what is saved.
    expect(await types.getByLabel('All events, including later ones').isChecked()).toBe(false);
    expect(await types.getByLabel('order.delivered').isChecked()).toBe(true);
    expect(await types.getByLabel('order.created').isChecked()).toBe(false);
    await types.getByLabel('All events, including later ones').check();
    expect(await types.getByLabel('order.delivered').count()).toBe(0);
    await form.getByRole('button', { name: 'Save event types' }).click();

    await card()
      .getByRole('definition')
      .filter({ hasText: /^All events$/ })
      .waitFor();
    expect(await eventTypesOf()).toBeNull();
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('when an empty list is sent by hand, then it is refused with a 400 and the endpoint keeps receiving every type', async () => {
    const answer = await portalApi(page, server, 'GET', '/api/portal/webhooks');
    const id: string = answer.body.data.webhooks.find((w: { url: string }) => w.url === URL).webhook_id;
    const refused = await portalApi(page, server, 'PATCH', `/api/portal/webhooks/${id}`, { event_types: [] });
    expect(refused.status).toBe(400);
    expect(await eventTypesOf()).toBeNull();
  });
});
