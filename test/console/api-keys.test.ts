import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { call } from '../instances/support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  openPage,
  pageReady,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const CLINIC = 'Harbor Compounding Partners';

/** An admin issues a restricted key in the console and rolls it (issue 20, items 1 and 2). */
describe('API keys in the console: a restricted key, issued and rolled', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let clinicId: string;
  /** The key issued in the first test, rolled in the second. */
  let issuedKey = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    const clinic = await call(server, 'POST', '/api/admin/clinics', { operator: true, body: { name: CLINIC } });
    clinicId = clinic.body.data.clinic_id;
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const partner = (apiKey: string, path: string) => call(server, 'GET', path, { apiKey });
  const keyRows = () => page.getByRole('table', { name: 'API keys' }).getByRole('row');

  it('when an admin checks orders:write and carriers:read and issues a key, then the key is restricted to them and the list shows its scopes', async () => {
    await page.goto(`/console/clinics/${clinicId}`);
    await pageReady(page, CLINIC);
    const form = page.getByRole('form', { name: 'Issue an API key' });
    await form.getByRole('checkbox', { name: 'orders:write' }).check();
    // Write includes read: the read box is checked with it, and cannot be unchecked alone.
    expect(await form.getByRole('checkbox', { name: 'orders:read' }).isChecked()).toBe(true);
    expect(await form.getByRole('checkbox', { name: 'orders:read' }).isDisabled()).toBe(true);
    await form.getByRole('checkbox', { name: 'carriers:read' }).check();
    await form.getByText('Restricted to: orders:write, carriers:read.').waitFor();
    await form.getByRole('button', { name: 'Issue API key' }).click();

    const apiKey = await page.getByRole('textbox', { name: 'API key' }).inputValue();
    expect(apiKey).toMatch(/^dev_/);
    issuedKey = apiKey;
    await page.getByText('Scopes: orders:write, carriers:read.').waitFor();
    const row = keyRows().filter({ hasText: 'orders:write, carriers:read' });
    await row.waitFor();
    expect(await row.textContent()).toContain(`…${apiKey.slice(-4)}`);
    expect(await page.locator('body').textContent()).not.toContain(apiKey.slice(12));
    await page.getByRole('button', { name: 'Done' }).click();

    expect((await partner(apiKey, '/api/external/carriers')).status).toBe(200);
    const refused = await partner(apiKey, '/api/external/medications');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Forbidden: this API key lacks the scope formulary:read');
    // The next form starts with nothing checked: full access.
    await form.getByText('None checked: the key has full access.').waitFor();
  });

  it('when an admin rolls the key with a day of overlap, then the successor is shown once with the same scopes, both keys work, and the old one shows its expiry', async () => {
    const before = await call(server, 'GET', `/api/admin/clinics/${clinicId}/api-keys`, { operator: true });
    const [old] = before.body.data.api_keys as { api_key_id: string; key_last4: string }[];
    if (!old) throw new Error('no key to roll');

    const row = keyRows().filter({ hasText: `…${old.key_last4}` });
    await row.getByRole('button', { name: 'Roll' }).click();
    const prompt = row.getByRole('group', { name: /^Roll / });
    await prompt.getByLabel('Old key keeps working').selectOption({ label: '24 hours' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await prompt.getByRole('button', { name: 'Roll key' }).click();

    const successor = await page.getByRole('textbox', { name: 'API key' }).inputValue();
    expect(successor).toMatch(/^dev_/);
    await page.getByText('Scopes: orders:write, carriers:read.').waitFor();
    await page.getByText(/The rolled key keeps working until/).waitFor();
    await screenshot(page, 'api-keys-rolled');

    const after = await call(server, 'GET', `/api/admin/clinics/${clinicId}/api-keys`, { operator: true });
    const [rolled, next] = after.body.data.api_keys as { expires_at: string | null; created_at: string; scopes: string[] }[];
    expect(Date.parse(rolled?.expires_at ?? '') - Date.parse(next?.created_at ?? '')).toBe(86_400_000);
    expect(next?.scopes).toEqual(['orders:write', 'carriers:read']);
    // Both rows are listed, and both can still be rolled or revoked (the old one until its expiry).
    await keyRows()
      .filter({ hasText: `…${successor.slice(-4)}` })
      .waitFor();
    expect(await keyRows().getByRole('button', { name: 'Roll' }).count()).toBe(2);

    for (const apiKey of [issuedKey, successor]) expect((await partner(apiKey, '/api/external/carriers')).status).toBe(200);
    expect((await partner(successor, '/api/external/medications')).status).toBe(403);
  });
});
