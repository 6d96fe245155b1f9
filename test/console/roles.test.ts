import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses } from '../helpers/server-process.js';
import { call } from '../instances/support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  navigate,
  openPage,
  pageReady,
  screenshot,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const PHARMACIST = {
  email: 'parker.pharmacist@pharmacy.example',
  name: 'Parker Pharmacist',
  password: 'pharmacist passphrase 2026',
};

describe('roles: a pharmacist the admin creates in the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let admin: Page;
  let pharmacist: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    admin = await openPage(browser, server);
    await signIn(admin, FIRST_ADMIN);

    await navigate(admin, 'Staff');
    await admin.getByRole('button', { name: 'New staff member' }).click();
    const form = admin.getByRole('form', { name: 'New staff member' });
    await form.getByLabel('Email').fill(PHARMACIST.email);
    await form.getByLabel('Name').fill(PHARMACIST.name);
    await form.getByLabel('Role').selectOption({ label: 'Pharmacist' });
    await form.getByLabel('Password').fill(PHARMACIST.password);
    await form.getByRole('button', { name: 'Create staff member' }).click();
    await admin.getByRole('row').filter({ hasText: PHARMACIST.email }).waitFor();

    pharmacist = await openPage(browser, server);
    await signIn(pharmacist, PHARMACIST);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  /** A request the pharmacist's console page makes itself: same origin, with the session cookie. */
  const fromPharmacistPage = (method: string, path: string, body?: unknown) =>
    pharmacist.evaluate(
      async ({ method, path, body }) => {
        const response = await fetch(path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
      },
      { method, path, body },
    );

  it('when the pharmacist is signed in, then the navigation has no Staff link and no admin-only control', async () => {
    const links = await pharmacist.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(links).toEqual(['Dashboard', 'Orders', 'Holds', 'Recall', 'Clinics', 'Carriers', 'Webhooks', 'Audit', 'Account']);

    await navigate(pharmacist, 'Clinics');
    expect(await pharmacist.getByRole('button', { name: 'New clinic' }).count()).toBe(0);
    await pharmacist.goto('/console/staff');
    await pageReady(pharmacist, 'Staff');
    expect(await pharmacist.getByRole('button', { name: 'New staff member' }).count()).toBe(0);
    await screenshot(pharmacist, 'pharmacist-staff');
  });

  it('when the pharmacist calls admin-only routes from the console, then the API answers 403 FORBIDDEN and changes nothing', async () => {
    const staff = await fromPharmacistPage('GET', '/api/admin/staff');
    expect(staff.status).toBe(403);
    expect(staff.body.error?.code).toBe('FORBIDDEN');

    const clinic = await fromPharmacistPage('POST', '/api/admin/clinics', { name: 'Pharmacist Clinic' });
    expect(clinic.status).toBe(403);
    expect(clinic.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('admin role') });
    const clinics = await call(server, 'GET', '/api/admin/clinics', { operator: true });
    expect(JSON.stringify(clinics.body)).not.toContain('Pharmacist Clinic');
  });

  it('when the admin disables the pharmacist, then the pharmacist is signed out at the next click', async () => {
    await navigate(admin, 'Staff');
    const row = admin.getByRole('row').filter({ hasText: PHARMACIST.email });
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'Yes, disable' }).click();
    // Disabled once the row no longer says Active (the account's sessions end in the same request).
    await row.getByText('Active', { exact: true }).waitFor({ state: 'detached' });
    // The column says what each account is (issue 21: its "Disabled" column said "Active").
    await row.getByRole('cell', { name: /^Disabled / }).waitFor();
    expect(await admin.getByRole('columnheader', { name: 'Status' }).count()).toBe(1);
    expect(await admin.getByRole('columnheader', { name: 'Disabled' }).count()).toBe(0);

    await pharmacist.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clinics' }).click();

    await pharmacist.getByRole('button', { name: 'Sign in' }).waitFor();
  });
});
