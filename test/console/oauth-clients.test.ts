import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { dataOf } from '../faults/partner-server.js';
import { call } from '../instances/support.js';
import { basic } from '../oauth/support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  openPage,
  pageReady,
  screenshot,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

/** The OAuth clients of a clinic page (issue 20, item 3): created with scopes, the secret shown once, revoked. */
describe('a clinic\u2019s OAuth clients in the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let clinicId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
    clinicId = dataOf(
      await call(server, 'POST', '/api/admin/clinics', { operator: true, body: { name: 'OAuth Clinic' } }),
      'clinic',
    ).clinic_id;
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const token = async (clientId: string, secret: string) => {
    const response = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    return { status: response.status, body: (await response.json()) as { access_token?: string; scope?: string } };
  };
  const carriers = async (accessToken: string) =>
    (await fetch(`${server.baseUrl}/api/external/carriers`, { headers: { authorization: `Bearer ${accessToken}` } })).status;

  it('when an admin creates a client with scopes and later revokes it, then its secret works once shown, is never shown again, and stops working', async () => {
    await page.goto(`/console/clinics/${clinicId}`);
    await pageReady(page, 'OAuth Clinic');
    const section = page.getByRole('region', { name: 'OAuth clients' });
    const form = section.getByRole('form', { name: 'Create an OAuth client' });
    // Without a scope there is nothing to create: an OAuth client always names its scopes.
    expect(await form.getByRole('button', { name: 'Create OAuth client' }).isDisabled()).toBe(true);
    await form.getByRole('checkbox', { name: 'carriers:read' }).check();
    await form.getByRole('checkbox', { name: 'orders:write' }).check();
    await form.getByRole('button', { name: 'Create OAuth client' }).click();

    const secret = await section.getByLabel('Client secret').inputValue();
    expect(secret).toMatch(/^cs_dev_/);
    const clientId = (await section.locator('.issued-key code').first().textContent()) ?? '';
    await screenshot(page, 'oauth-client-created');

    const issued = await token(clientId, secret);
    expect(issued.status).toBe(200);
    expect(issued.body.scope).toBe('orders:write carriers:read');
    expect(await carriers(issued.body.access_token!)).toBe(200);

    await section.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await pageReady(page, 'OAuth Clinic');
    const row = section.getByRole('row').filter({ hasText: clientId });
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.getByText('Active').waitFor({ state: 'detached' });
    expect(await carriers(issued.body.access_token!)).toBe(401);
    expect((await token(clientId, secret)).body).toMatchObject({ error: 'invalid_client' });
  });
});
