import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/operator-guard.js';
import { orderBody, type OrderParties } from '../helpers/factories.js';
import { freshProcessDatabase, type ProcessDatabase } from '../helpers/process-database.js';
import { runAdminCli, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { call, OPERATOR_TOKEN } from '../instances/support.js';
import { dataOf } from '../faults/partner-server.js';
import { CHROMIUM } from './chromium.js';

/**
 * The console's browser tests (issue 10, "Tests"): the real built server (console included) on a
 * SQLite file, its first admin made with the command line as the README tells operators, and
 * Debian's Chromium driven by playwright-core. Pages are found as a person finds them: by role and
 * accessible name, with the names the issue gives.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Where screenshots go (git-ignored); the README's image is written only on request. */
const SCREENSHOTS = path.join(ROOT, 'test-output', 'console');

export interface Credentials {
  email: string;
  password: string;
}

/** The deployment's first admin, created with `npm run admin -- create-staff … --password-stdin`. */
export const FIRST_ADMIN = {
  email: 'avery.admin@pharmacy.example',
  name: 'Avery Admin',
  password: 'first admin passphrase 2026',
};

export interface ConsoleServer extends ServerProcess {
  readonly database: ProcessDatabase;
}

/**
 * A development server on 127.0.0.1 (plain HTTP, so the session cookie is not `Secure`; private
 * webhook targets allowed) on a SQLite file of its own, with its first admin. `env` adds variables.
 */
export async function startConsoleServer(env: Record<string, string> = {}): Promise<ConsoleServer> {
  const database = await freshProcessDatabase('sqlite', 'console');
  const server = await startServerProcess({
    ADMIN_TOKEN: OPERATOR_TOKEN,
    ...database.env,
    // The tests load pages quickly one after the other; rate limits are tested elsewhere.
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  await runAdminCli(
    ['create-staff', '--email', FIRST_ADMIN.email, '--name', FIRST_ADMIN.name, '--role', 'admin', '--password-stdin'],
    { env: database.env, input: `${FIRST_ADMIN.password}\n` },
  );
  return { ...server, database };
}

/**
 * The suite's one Chromium (browser-setup.ts), connected to: `close()` disconnects and drops this
 * file's contexts, leaving the browser to the other files.
 */
export function launchChromium(): Promise<Browser> {
  const endpoint = inject('chromiumEndpoint');
  if (!endpoint) throw new Error(`${CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium)`);
  return chromium.connect(endpoint);
}

/** A fresh browser profile (no cookies) at a laptop's width, its relative URLs on `server`. */
export async function openPage(browser: Browser, server: Pick<ServerProcess, 'baseUrl'>): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 800 } });
  return context.newPage();
}

/** Signs in on the sign-in page, as staff do, and waits for the console's navigation. */
export async function signIn(page: Page, credentials: Credentials): Promise<void> {
  await page.goto('/console');
  await page.getByLabel('Email').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** The page's session cookie as a `Cookie` header, to replay it from outside the browser. */
export async function sessionCookieOf(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find(({ name }) => name === SESSION_COOKIE);
  if (!cookie) throw new Error('the browser holds no session cookie');
  return `${cookie.name}=${cookie.value}`;
}

/** The status GET /api/admin/session answers to `cookie` (200 while the session lives, 401 after). */
export async function sessionStatus(server: Pick<ServerProcess, 'baseUrl'>, cookie: string): Promise<number> {
  return (await fetch(`${server.baseUrl}/api/admin/session`, { headers: { cookie } })).status;
}

/** Follows a link of the main navigation and waits for its page to be ready. */
export async function navigate(page: Page, link: string, heading: string | RegExp = link): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await pageReady(page, heading);
}

/** Waits for the page's heading (any, for a page named after its record) and for every "Loading …" to be gone. */
export async function pageReady(page: Page, heading?: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, ...(heading === undefined ? {} : { name: heading }) }).waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' });
}

/**
 * Finds an order in the queue by its id, as staff do with the id a clinic quotes, and opens it. The
 * queue shows each order's last 8 characters (a UUIDv7's random part).
 */
export async function openOrderFromQueue(page: Page, orderId: string): Promise<void> {
  await navigate(page, 'Orders');
  await page.getByLabel('Search orders').fill(orderId);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const row = page.getByRole('row').filter({ hasText: orderId.slice(-8) });
  await row.getByRole('link').first().click();
  await page.getByRole('region', { name: 'Status' }).waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' });
}

/** A full-page screenshot under test-output/console/ (git-ignored); prints and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${path.relative(ROOT, file)}`);
  return file;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now. Its source is evaluated
 * through the DevTools protocol, not added as a script tag (the console's CSP forbids inline
 * scripts, and the test must not loosen the policy it checks pages under).
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } };
    const results = await axe.run();
    return results.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target }) => ({ target })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** A clinic's new order through the partner API, with its key; answers the order id. */
export async function placeOrder(
  server: Pick<ServerProcess, 'baseUrl'>,
  apiKey: string,
  parties: OrderParties,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const body = orderBody(parties, overrides);
  return dataOf(await call(server, 'POST', '/api/external/medication-order', { apiKey, body }), 'create order')
    .medication_request_id;
}

/** The order as the partner API reports it to the clinic. */
export async function partnerOrder(server: Pick<ServerProcess, 'baseUrl'>, apiKey: string, orderId: string): Promise<any> {
  return dataOf(await call(server, 'GET', `/api/external/medication-order/${orderId}`, { apiKey }), 'get order');
}
