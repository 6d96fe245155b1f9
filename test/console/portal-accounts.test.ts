import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/accounts/totp.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { call } from '../instances/support.js';
import { dataOf, prepareToOrder } from '../faults/partner-server.js';
import {
  acceptInvitation,
  inviteWithCli,
  portalApi,
  portalNav,
  portalNavigate,
  portalSignIn,
  PORTAL_PASSWORD,
} from './portal-support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  navigate,
  openPage,
  pageReady,
  placeOrder,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const CLINIC = 'Harbor View Clinic';
const DEVELOPER = { email: 'dana.developer@harborview.example', name: 'Dana Developer' };
const VIEWER = { email: 'vic.viewer@harborview.example', name: 'Vic Viewer' };

/** TOTP's step: a code is valid for 30 seconds, and the server takes the one before and after too. */
const STEP_MS = 30_000;

/**
 * The portal's accounts in a real browser (issue 22): a partner user invited from the console's
 * clinic page signs in; two-step sign-in turned on and asked for; a viewer shown no change and
 * refused one sent by hand.
 */
describe('portal accounts: invitation from the console, two-step sign-in, the viewer', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let clinicId = '';
  let invitationLink = '';
  const pages: Page[] = [];
  const newPage = async () => {
    const page = await openPage(browser, server);
    pages.push(page);
    return page;
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  it('when an admin invites a developer on the clinic page, then the link shown once lets them set a password, sign in, and see their clinic', async () => {
    const admin = await newPage();
    await signIn(admin, FIRST_ADMIN);
    await navigate(admin, 'Clinics');
    await admin.getByRole('button', { name: 'New clinic' }).click();
    const newClinic = admin.getByRole('form', { name: 'New clinic' });
    await newClinic.getByLabel('Name').fill(CLINIC);
    await newClinic.getByRole('button', { name: 'Create clinic' }).click();
    await pageReady(admin, CLINIC);
    clinicId = new URL(admin.url()).pathname.split('/').pop() ?? '';

    const users = admin.getByRole('region', { name: 'Portal users' });
    await users.getByRole('button', { name: 'Invite a portal user' }).click();
    const invite = users.getByRole('form', { name: 'Invite a portal user' });
    await invite.getByLabel('Email').fill(DEVELOPER.email);
    await invite.getByLabel('Role').selectOption('developer');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    const link = new URL(await users.getByLabel('Invitation link').inputValue());
    invitationLink = `${link.pathname}${link.hash}`;
    expect(link.pathname).toBe('/portal/invitation');
    await users.getByRole('button', { name: 'Done' }).click();
    // Shown once: the list names the person, not the link.
    await users.getByRole('row').filter({ hasText: DEVELOPER.email }).waitFor();
    expect(await users.getByLabel('Invitation link').count()).toBe(0);

    const partner = await newPage();
    await partner.goto(invitationLink);
    await partner.getByText(DEVELOPER.email).first().waitFor();
    await partner.getByText(CLINIC).first().waitFor();
    expect(await seriousAxeViolations(partner)).toEqual([]);
    await acceptInvitation(partner, invitationLink, DEVELOPER.name);
    // The sign-in page, its email filled in by the invitation.
    expect(await partner.getByLabel('Email').inputValue()).toBe(DEVELOPER.email);
    expect(await seriousAxeViolations(partner)).toEqual([]);
    await portalSignIn(partner, DEVELOPER.email);
    await portalNavigate(partner, 'Overview');
    await partner.getByText(CLINIC).first().waitFor();
    expect(await seriousAxeViolations(partner)).toEqual([]);

    // The link is single-use.
    const again = await newPage();
    await again.goto(invitationLink);
    await again.getByRole('alert').waitFor();
    expect(await again.getByLabel('Password').count()).toBe(0);
  });

  it('when the developer turns on two-step sign-in, then signing in asks for the code, refuses a wrong one, and takes the right one', async () => {
    const page = await newPage();
    await portalSignIn(page, DEVELOPER.email);
    await portalNavigate(page, 'Account');
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await page.getByText('otpauth://').first().waitFor();
    const secret = (await page.locator('dl.facts dd code').first().textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // A wrong code leaves it off.
    await page.getByLabel('Code from the app').fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('alert').waitFor();
    const enrolledAt = Date.now();
    await page.getByLabel('Code from the app').fill(totpCode(secret, new Date(enrolledAt)));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Status: on').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(DEVELOPER.email);
    await page.getByLabel('Password').fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Authentication code');
    await code.waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByLabel('Password').fill(PORTAL_PASSWORD);
    await code.fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await portalNav(page).count()).toBe(0);

    // A code of a step not spent: the confirmation's step cannot be used twice, so while it lasts the
    // next step's code (the server takes a step either side of its own).
    const now = Date.now();
    const sameStep = Math.floor(now / STEP_MS) === Math.floor(enrolledAt / STEP_MS);
    await page.getByLabel('Password').fill(PORTAL_PASSWORD);
    await code.fill(totpCode(secret, new Date(sameStep ? now + STEP_MS : now)));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await portalNav(page).waitFor();
    await page.getByText(DEVELOPER.name).first().waitFor();
  });

  it('when a viewer signs in, then the keys, webhooks, deliveries and sandbox pages offer no change, and a change sent by hand with their session is refused with 403', async () => {
    const link = await inviteWithCli(server, clinicId, VIEWER.email, 'viewer');
    const page = await newPage();
    await acceptInvitation(page, link, VIEWER.name);
    await portalSignIn(page, VIEWER.email);

    await portalNavigate(page, 'API keys');
    await page.getByText('read-only access').waitFor();
    for (const name of ['New API key', 'Roll', 'Revoke']) expect(await page.getByRole('button', { name }).count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await portalNavigate(page, 'Webhooks');
    await page.getByText('read-only access').waitFor();
    for (const name of ['New endpoint', 'Send test event', 'Rotate secret', 'Disable'])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    await portalNavigate(page, 'Deliveries');
    expect(await page.getByRole('button', { name: 'Resend' }).count()).toBe(0);
    // A sandbox order: the viewer reads where it can go, with no button to move it.
    const orderId = await sandboxOrder(server, clinicId);
    await portalNavigate(page, 'Sandbox');
    const order = page.getByRole('row').filter({ hasText: orderId });
    await order.getByText('processing, cancelled').waitFor();
    expect(await order.getByRole('button').count()).toBe(0);

    const created = await portalApi(page, server, 'POST', '/api/portal/keys', {});
    expect(created.status).toBe(403);
    expect(created.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    const webhook = await portalApi(page, server, 'POST', '/api/portal/webhooks', { url: 'https://hooks.example.com/x' });
    expect(webhook.status).toBe(403);
    const advanced = await portalApi(page, server, 'POST', `/api/portal/sandbox/orders/${orderId}/advance`, {
      status: 'processing',
    });
    expect(advanced.status).toBe(403);
    // Reading is theirs.
    expect((await portalApi(page, server, 'GET', '/api/portal/keys')).status).toBe(200);
  });

  it('when the viewer opens the overview, then it shows the FHIR base URL and the SMART configuration\u2019s, and Copy puts the base URL on the clipboard', async () => {
    const page = await newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await portalSignIn(page, VIEWER.email);
    await portalNavigate(page, 'Overview');
    const fhirBase = `${server.baseUrl}/fhir/R4`;
    await page.getByText(fhirBase, { exact: true }).waitFor();
    await page.getByText(`${fhirBase}/.well-known/smart-configuration`, { exact: true }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Copy FHIR base URL' }).click();
    await page.getByText('The FHIR base URL is copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(fhirBase);
    // The address shown is the server's: its discovery document answers there, without a credential.
    expect((await call(server, 'GET', '/fhir/R4/.well-known/smart-configuration')).status).toBe(200);
  });

  it('when someone opens the portal signed out, then the sign-in page passes axe and the portal API answers 401', async () => {
    const page = await newPage();
    await page.goto('/portal/keys');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect((await portalApi(page, server, 'GET', '/api/portal/keys')).status).toBe(401);
  });
});

/** An order of the clinic placed through the partner API (a key, the formulary, a practitioner and patient made for it). */
async function sandboxOrder(server: ConsoleServer, clinicId: string): Promise<string> {
  const apiKey: string = dataOf(
    await call(server, 'POST', `/api/admin/clinics/${clinicId}/api-keys`, { operator: true, body: {} }),
    'issue key',
  ).api_key;
  const parties = { clinic: { clinicId }, ...(await prepareToOrder(server, { clinicId, apiKey })) };
  return placeOrder(server, apiKey, parties);
}

/** A six-digit code that is not the current, previous or next one of `secret`. */
function wrongCode(secret: string): string {
  const now = Date.now();
  const near = new Set([-1, 0, 1].map((step) => totpCode(secret, new Date(now + step * STEP_MS))));
  for (let candidate = 0; ; candidate++) {
    const code = String(candidate).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}
