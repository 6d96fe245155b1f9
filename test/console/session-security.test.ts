import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { inDatabase } from '../helpers/process-database.js';
import { parseExposition } from '../helpers/prometheus-text.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { call } from '../instances/support.js';
import {
  FIRST_ADMIN,
  launchChromium,
  navigate,
  openPage,
  pageReady,
  sessionCookieOf,
  sessionStatus,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

/** The shortest idle timeout the configuration accepts. */
const IDLE_TIMEOUT_MINUTES = 1;
const FORGED_CLINIC = 'Forged Clinic';

describe('console sessions: idle timeout and cross-site requests', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startConsoleServer({ CONSOLE_IDLE_TIMEOUT_MINUTES: String(IDLE_TIMEOUT_MINUTES) }),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });
  beforeEach(async () => {
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
    // The landing page's own requests are over before the session is aged: the request that meets
    // the aged session is the one the test makes.
    await pageReady(page, 'Orders');
    await page.waitForLoadState('networkidle');
  });
  afterEach(async () => {
    await page.context().close();
  });

  /**
   * Time passes for the session, not for the test: its last request is moved back in the database
   * the server reads it from, which is what an idle browser leaves behind, without waiting a minute.
   */
  const idleFor = (seconds: number) =>
    inDatabase(server.database, (db) =>
      db
        .updateTable('staff_sessions')
        .set({ last_seen_at: new Date(Date.now() - seconds * 1000).toISOString() })
        .execute(),
    );

  it('when a session has been idle for less than the timeout, then the console still answers', async () => {
    await idleFor(IDLE_TIMEOUT_MINUTES * 60 - 30);

    await navigate(page, 'Clinics');

    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
  });

  it('when a session has been idle past the timeout, then its next request is refused and sign-in is shown', async () => {
    const cookie = await sessionCookieOf(page);
    await idleFor(IDLE_TIMEOUT_MINUTES * 60 + 1);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clinics' }).click();

    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await sessionStatus(server, cookie)).toBe(401);
  });

  describe('a page of another origin that posts to the operator API with the signed-in browser', () => {
    let attacker: http.Server;
    let attackerUrl: string;

    beforeAll(async () => {
      attacker = http.createServer((request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(request.url === '/fetch' ? forgedFetchPage(server.baseUrl) : forgedFormPage(server.baseUrl));
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      // Another port of the same host: another origin, but the same site, so SameSite=Strict still
      // sends the cookie and only the server's Origin check stands between the page and the API.
      attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => attacker.close(resolve));
    });

    /** Forged clinic creations the server answered 403, as its own metrics count them. */
    const refusedPosts = async () => {
      const metrics = await call(server, 'GET', '/metrics', { operator: true });
      const sample = parseExposition(metrics.body, 'prometheus').samples.find(
        ({ name, labels }) =>
          name === 'http_request_duration_seconds_count' &&
          labels.method === 'POST' &&
          labels.route === '/api/admin/clinics' &&
          labels.status_code === '403',
      );
      return sample?.value ?? 0;
    };

    // The answer itself may never reach the page (the server's Cross-Origin-Resource-Policy keeps it
    // from a fetch of another origin): the server's count of 403s is the witness of its refusal. A
    // 403 and not a 401 also shows that the cookie came along and was accepted: the Origin check
    // refused the request, not a missing session.
    for (const [kind, path] of [
      ['an auto-submitted form', '/form'],
      ['a fetch with credentials', '/fetch'],
    ] as const) {
      it(`when it is ${kind}, then the server refuses it although the session cookie came along, and nothing is created`, async () => {
        const refusedBefore = await refusedPosts();
        const forged = page.waitForRequest(
          (request) => request.url() === `${server.baseUrl}/api/admin/clinics` && request.method() === 'POST',
        );

        await page.goto(`${attackerUrl}${path}`);

        await forged;
        await eventually(async () => (await refusedPosts()) === refusedBefore + 1);
        const clinics = await call(server, 'GET', '/api/admin/clinics', { operator: true });
        expect(clinics.status).toBe(200);
        expect(JSON.stringify(clinics.body)).not.toContain(FORGED_CLINIC);
      });
    }
  });
});

/** The classic forged JSON form: a text/plain body that reads as `{"name":"Forged Clinic","x":"="}`. */
function forgedFormPage(target: string): string {
  return `<!doctype html><html lang="en"><title>Win a prize</title>
<form method="post" action="${target}/api/admin/clinics" enctype="text/plain">
<input type="hidden" name='{"name":"${FORGED_CLINIC}","x":"' value='"}'>
</form>
<script>document.forms[0].submit()</script></html>`;
}

/** A "simple" cross-origin request (no preflight), with the browser's cookies. */
function forgedFetchPage(target: string): string {
  return `<!doctype html><html lang="en"><title>Win a prize</title>
<script>fetch(${JSON.stringify(`${target}/api/admin/clinics`)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
  headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: ${JSON.stringify(FORGED_CLINIC)} }) })</script></html>`;
}
