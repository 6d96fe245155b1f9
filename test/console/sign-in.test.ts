import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import {
  FIRST_ADMIN,
  launchChromium,
  openPage,
  pageReady,
  screenshot,
  sessionCookieOf,
  sessionStatus,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const NAVIGATION = ['Dashboard', 'Orders', 'Holds', 'Recall', 'Clinics', 'Carriers', 'Webhooks', 'Audit', 'Staff', 'Account'];

describe('signing in to the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });
  beforeEach(async () => {
    page = await openPage(browser, server);
  });
  afterEach(async () => {
    await page.context().close();
  });

  it('when a signed-out browser opens a console page, then it is shown the sign-in form and nothing else', async () => {
    await page.goto('/console/clinics');

    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByLabel('Email').isVisible()).toBe(true);
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Clinics' }).count()).toBe(0);
    await screenshot(page, 'sign-in');
  });

  it('when a signed-out browser signs in on a deep link, then it lands on the page it asked for', async () => {
    await page.goto('/console/clinics');
    await page.getByLabel('Email').fill(FIRST_ADMIN.email);
    await page.getByLabel('Password').fill(FIRST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await pageReady(page, 'Clinics');
    expect(new URL(page.url()).pathname).toBe('/console/clinics');
  });

  it('when the admin created with the command line signs in, then the order queue opens with every link', async () => {
    await signIn(page, FIRST_ADMIN);

    await pageReady(page, 'Orders');
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(links).toEqual(NAVIGATION);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(await page.getByText(FIRST_ADMIN.name).isVisible()).toBe(true);
  });

  it('when the password is wrong, then a message says so and the browser stays signed out', async () => {
    await page.goto('/console');
    await page.getByLabel('Email').fill(FIRST_ADMIN.email);
    await page.getByLabel('Password').fill('not the right passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();

    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/email or password/i);
    expect(await alert.textContent()).toMatch(/Request id:/);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await screenshot(page, 'sign-in-refused');
  });

  it('when the admin signs out, then the sign-in form is shown and the old session cookie is refused', async () => {
    await signIn(page, FIRST_ADMIN);
    const cookie = await sessionCookieOf(page);
    expect(await sessionStatus(server, cookie)).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await sessionStatus(server, cookie)).toBe(401);
  });
});
