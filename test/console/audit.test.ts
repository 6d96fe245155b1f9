import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
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
  seriousAxeViolations,
  sessionCookieOf,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

/** A day as a date field holds it (`2026-11-26`), `days` from today in this machine's time zone (the browser's). */
function localDay(days: number): string {
  const day = new Date();
  day.setDate(day.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/**
 * The Audit page (issue 21, item 3): each row names its actor, the list filters by date range in
 * the address, and the viewer's own reads are hidden unless they ask for them.
 */
describe('the console\u2019s audit page', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let orderId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
    const partner = await createOrderingPartner(server, 'Audit Clinic');
    orderId = await placeOrder(server, partner.clinic.apiKey, partner);
    // The admin, signed in, opens the order (their own reads) and starts processing it (a change).
    const cookie = await sessionCookieOf(page);
    const read = await fetch(`${server.baseUrl}/api/admin/medication-requests/${orderId}`, { headers: { cookie } });
    expect(read.status).toBe(200);
    const moved = await fetch(`${server.baseUrl}/api/admin/medication-requests/${orderId}/status`, {
      method: 'POST',
      headers: { cookie, origin: server.baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'processing' }),
    });
    expect(moved.status).toBe(200);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const rowsOf = (action: string) => page.getByRole('row').filter({ hasText: orderId }).filter({ hasText: action });
  const form = () => page.getByRole('form', { name: 'Filter the audit trail' });

  it('when the admin opens the audit page, then their change is named and their own reads are hidden until they ask for them', async () => {
    await navigate(page, 'Audit');
    await rowsOf('transition').first().waitFor();
    expect(await rowsOf('transition').first().textContent()).toContain(FIRST_ADMIN.name);
    // The formulary medication the operator token added names the token as such.
    await page.getByRole('row').filter({ hasText: 'Operator token' }).first().waitFor();
    expect(await rowsOf('read').count()).toBe(0);

    await form().getByLabel('Include my own reads').check();
    await form().getByRole('button', { name: 'Apply filters' }).click();
    await rowsOf('read').first().waitFor();
    expect(await rowsOf('read').first().textContent()).toContain(FIRST_ADMIN.name);
    expect(page.url()).toContain('include_own_reads=true');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'audit-own-reads');
  });

  it('when the date range starts tomorrow, then nothing is listed; when it covers today, then today\u2019s events are', async () => {
    await page.goto('/console/audit');
    await pageReady(page, 'Audit');
    await form().getByLabel('From', { exact: true }).fill(localDay(1));
    await form().getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No audit event matches these filters.').waitFor();
    expect(new URL(page.url()).searchParams.get('from')).toBe(localDay(1));

    await form().getByLabel('From', { exact: true }).fill(localDay(-1));
    await form().getByLabel('To', { exact: true }).fill(localDay(0));
    await form().getByRole('button', { name: 'Apply filters' }).click();
    await rowsOf('transition').first().waitFor();
    expect(new URL(page.url()).searchParams.get('to')).toBe(localDay(0));
    expect(await rowsOf('read').count()).toBe(0);

    // The filters are in the address: reloading keeps them.
    await page.reload();
    await pageReady(page, 'Audit');
    expect(await form().getByLabel('From', { exact: true }).inputValue()).toBe(localDay(-1));
    await rowsOf('transition').first().waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'audit-date-range');
  });

  it('when filtered by actor type, then only that kind of actor\u2019s events are listed', async () => {
    await page.goto('/console/audit?actor_type=operator');
    await pageReady(page, 'Audit');
    await page.getByRole('row').filter({ hasText: 'Operator token' }).first().waitFor();
    expect(await page.getByRole('row').filter({ hasText: FIRST_ADMIN.name }).count()).toBe(0);
    // The API was asked with the same filter the address holds.
    const listed = dataOf(
      await call(server, 'GET', '/api/admin/audit-events?actor_type=operator', { operator: true }),
      'audit events',
    ) as { items: { actor: { type: string } }[] };
    expect(listed.items.every((item) => item.actor.type === 'operator')).toBe(true);
  });
});
