import type { Page } from 'playwright-core';
import { runAdminCli } from '../helpers/server-process.js';
import type { ConsoleServer } from './support.js';

/**
 * What the portal's browser tests share (issue 22, "Tested in a real browser"): a partner user
 * invited as an operator does it, the invitation accepted, the sign-in at /portal.
 */

export const PORTAL_PASSWORD = 'correct horse battery staple 42';
export const PORTAL_SESSION_COOKIE = 'portal_session';

/**
 * Invites a person of the clinic with the operator command line (`npm run admin --
 * invite-partner-user`); answers the link's path and fragment (the command line prints it on
 * PUBLIC_BASE_URL, which a test server on port 0 does not know).
 */
export async function inviteWithCli(
  server: ConsoleServer,
  clinicId: string,
  email: string,
  role: 'developer' | 'viewer',
): Promise<string> {
  const printed = await runAdminCli(['invite-partner-user', '--clinic', clinicId, '--email', email, '--role', role], {
    env: server.database.env,
  });
  const url = new URL(printed.invitation_url);
  return `${url.pathname}${url.hash}`;
}

/** Opens the invitation link, sets the name and password, and waits for the sign-in it leads to. */
export async function acceptInvitation(page: Page, link: string, name: string, password = PORTAL_PASSWORD): Promise<void> {
  await page.goto(link);
  await page.getByRole('heading', { level: 2, name: 'Your invitation' }).waitFor();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Your account is ready').waitFor();
}

/** The portal's main navigation. */
export const portalNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in at /portal (the form as it is shown, or after opening /portal) and waits for the navigation. */
export async function portalSignIn(page: Page, email: string, password = PORTAL_PASSWORD): Promise<void> {
  if (!new URL(page.url()).pathname.startsWith('/portal')) await page.goto('/portal');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await portalNav(page).waitFor();
}

/** Follows a link of the portal's navigation and waits for its page to be loaded. */
export async function portalNavigate(page: Page, link: string, heading: string = link): Promise<void> {
  await portalNav(page).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' });
}

/**
 * A call to the portal API with the page's cookies (its session) and the portal's Origin, as the
 * page's own script would make it: what a person could send by hand from a signed-in browser.
 */
export async function portalApi(
  page: Page,
  server: Pick<ConsoleServer, 'baseUrl'>,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const answer = await page.request.fetch(path, {
    method,
    headers: { origin: server.baseUrl, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { data: JSON.stringify(body) }),
  });
  return { status: answer.status(), body: await answer.json() };
}
