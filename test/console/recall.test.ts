import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderingPartner } from '../faults/partner-server.js';
import { insertFillRowsFixture } from '../helpers/fill-rows.js';
import { inDatabase } from '../helpers/process-database.js';
import { killServerProcesses } from '../helpers/server-process.js';
import {
  FIRST_ADMIN,
  launchChromium,
  navigate,
  openPage,
  placeOrder,
  screenshot,
  seriousAxeViolations,
  signIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

const LOT = 'LOT-24-117';

/**
 * The Recall page (issue 30, item 4; docs/compounding.md#recall): staff type a lot number and see
 * every order that received it, in every clinic, each linking to its order, and export the list as
 * CSV. The fills are written by the fixture (test/helpers/fill-rows.ts), as the fill route would.
 */
describe('recall: staff find every order that received a lot and export it', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let ownLot = '';
  let ingredientLot = '';
  let unrelated = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    const riverside = await createOrderingPartner(server, 'Riverside Family Clinic');
    const harbor = await createOrderingPartner(server, 'Harbor Clinic');
    ownLot = await placeOrder(server, riverside.clinic.apiKey, riverside);
    ingredientLot = await placeOrder(server, harbor.clinic.apiKey, harbor);
    unrelated = await placeOrder(server, riverside.clinic.apiKey, riverside);
    await inDatabase(server.database, async (db) => {
      await insertFillRowsFixture(db, ownLot, [{ lot_number: LOT }]);
      await insertFillRowsFixture(db, ingredientLot, [
        { lot_number: 'LOT-9', ingredient_lots: [{ ingredient: 'Semaglutide sodium', lot_number: LOT }] },
      ]);
      await insertFillRowsFixture(db, unrelated, [{ lot_number: 'LOT-OTHER' }]);
    });
    page = await openPage(browser, server);
    await signIn(page, FIRST_ADMIN);
  });
  afterAll(async () => {
    await browser.close();
    await killServerProcesses();
    await server.database.drop();
  });

  const results = () => page.getByRole('region', { name: `Orders that received lot ${LOT}` });

  it('when staff recall a lot, then every order that received it is listed, by either match, each linking to its order', async () => {
    await navigate(page, 'Recall');
    await page.getByLabel('Lot number').fill(LOT);
    await page.getByRole('button', { name: 'Find orders' }).click();
    await results().getByRole('table').waitFor();
    const rows = results()
      .getByRole('row')
      .filter({ has: page.getByRole('cell') });
    await expect.poll(() => rows.count()).toBe(2);
    const [first, second] = [rows.nth(0), rows.nth(1)];
    await expect.poll(() => first.textContent()).toContain('Harbor Clinic');
    expect(await first.textContent()).toContain('Ingredient: Semaglutide sodium');
    expect(await second.textContent()).toContain('Riverside Family Clinic');
    expect(await second.textContent()).toContain('Preparation');
    expect(await first.getByRole('link').getAttribute('href')).toBe(`/console/orders/${ingredientLot}`);
    expect(await second.getByRole('link').getAttribute('href')).toBe(`/console/orders/${ownLot}`);
    expect(await results().textContent()).not.toContain(unrelated.slice(-8));
    // The lot is in the address: the recall can be linked to.
    expect(new URL(page.url()).searchParams.get('lot')).toBe(LOT);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'recall');
  });

  it('when staff export the recall, then the browser saves the whole list as CSV', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      results().getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`recall-${LOT}.csv`);
    // The browser may run elsewhere (a remote connection has no local path): saved where the test reads.
    const saved = path.join(mkdtempSync(path.join(tmpdir(), 'recall-download-')), 'recall.csv');
    await download.saveAs(saved);
    const text = await readFile(saved, 'utf8');
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]?.startsWith('medication_request_id,clinic_id,clinic_name,')).toBe(true);
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([ingredientLot, ownLot]);
  });

  it('when a lot no order received is recalled, then the page says so', async () => {
    await page.getByLabel('Lot number').fill('LOT-NONE');
    await page.getByRole('button', { name: 'Find orders' }).click();
    await page.getByText('No order received this lot.').waitFor();
  });
});
