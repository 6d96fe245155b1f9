import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { createOrder, createOrderSetup, orderBody, type OrderSetup } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { measureRequestCosts, type CostRequest, type RequestCosts } from '../helpers/request-costs.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * What each measured route costs per request (issue 19, item 3), as a Markdown table on stdout and
 * in test-output/request-costs.{md,json}: `npx vitest run --config test/perf/vitest.config.ts`.
 * Prints, never asserts: a regression test calls measureRequestCosts for the one figure it holds.
 * PostgreSQL counts its rate limit in Redis when the run has one, as a deployment of several
 * instances does; SQLite in memory.
 */

const OUT = path.resolve(import.meta.dirname, '../../test-output');
const REQUESTS = 50;
/** The routes whose statements are listed one by one. */
const LISTED = ['GET carriers', 'GET order', 'POST order'];

interface Row {
  label: string;
  database: string;
  costs: RequestCosts;
}

function routesOf(setup: OrderSetup, orderId: string): [string, CostRequest][] {
  const { clinicId } = setup.clinic;
  return [
    ['GET carriers', { method: 'GET', url: '/api/external/carriers' }],
    ['GET carrier services', { method: 'GET', url: `/api/external/carriers/fedex/services?patientId=${setup.patientId}` }],
    ['GET order', { method: 'GET', url: `/api/external/medication-order/${orderId}` }],
    ['GET patient', { method: 'GET', url: `/api/external/patient/${setup.patientId}` }],
    ['POST practitioner', { method: 'POST', url: '/api/external/practitioner', body: practitionerBody(clinicId) }],
    [
      'POST patient',
      { method: 'POST', url: '/api/external/patient', body: patientBody(clinicId, { practitioner_id: setup.practitionerId }) },
    ],
    ['POST order', { method: 'POST', url: '/api/external/medication-order', body: orderBody(setup) }],
    [
      'POST order, new Idempotency-Key',
      {
        method: 'POST',
        url: '/api/external/medication-order',
        body: orderBody(setup),
        headers: { 'idempotency-key': 'costs-{{seq}}' },
      },
    ],
    [
      'POST order, replayed Idempotency-Key',
      {
        method: 'POST',
        url: '/api/external/medication-order',
        body: orderBody(setup),
        headers: { 'idempotency-key': 'costs-replay' },
      },
    ],
  ];
}

/** One row of placeholders of a VALUES list: `(?, ?)` on SQLite, `($1, $2)` on PostgreSQL. */
const ROW = String.raw`\((?:(?:\?|\$\d+), )*(?:\?|\$\d+)\)`;
const MULTI_ROW = new RegExp(`(${ROW})((?:, ${ROW})+)`, 'g');

/** A multi-row INSERT shown as its first row and the count of rows (the audit buffer's batches). */
function shortened(sql: string): string {
  return sql.replace(
    MULTI_ROW,
    (_all, first: string, rest: string) => `${first}, … (${1 + (rest.match(/\(/g)?.length ?? 0)} rows)`,
  );
}

const figure = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

function table(rows: Row[]): string {
  const lines = [
    '| route | database | queries | transactions | prepared | compiled (Kysely) | Redis commands | promises | hooks run | hooks by kind | bytes logged (lines) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const { label, database, costs: c } of rows) {
    const byKind = Object.entries(c.hooksByName)
      .map(([hook, count]) => `${hook} ${figure(count)}`)
      .join(', ');
    const prepared = c.named > 0 ? `${figure(c.prepared)} (${figure(c.named)} named)` : figure(c.prepared);
    lines.push(
      `| ${label} | ${database} | ${figure(c.queries)} | ${figure(c.transactions)} | ${prepared} | ${figure(c.compiled)} | ${figure(c.redisCommands)} | ${figure(c.promises)} | ${figure(c.hooks)} | ${byKind} | ${figure(c.bytesLogged)} (${figure(c.linesLogged)}) |`,
    );
  }
  return lines.join('\n');
}

function statementLists(rows: Row[]): string {
  return rows
    .filter((row) => LISTED.includes(row.label))
    .map(({ label, database, costs }) => {
      const items = costs.statements.map(({ sql, perRequest }) => `- ${figure(perRequest)} × \`${shortened(sql)}\``);
      return [`#### ${label} (${database})`, ...items].join('\n');
    })
    .join('\n\n');
}

describe('what one request costs', () => {
  const rows: Row[] = [];

  afterAll(() => {
    const markdown = `${table(rows)}\n\n${statementLists(rows)}\n`;
    console.log(`\n${markdown}`);
    mkdirSync(OUT, { recursive: true });
    writeFileSync(path.join(OUT, 'request-costs.md'), markdown);
    writeFileSync(path.join(OUT, 'request-costs.json'), JSON.stringify(rows, null, 2));
  });

  for (const dialect of DIALECTS) {
    const redisUrl = dialect === 'postgres' ? inject('redisUrl') : null;
    const database = dialect === 'sqlite' ? 'SQLite' : redisUrl ? 'PostgreSQL + Redis' : 'PostgreSQL';

    describe(database, () => {
      let t: TestApp;
      let setup: OrderSetup;
      let orderId: string;

      beforeAll(async () => {
        t = await TestApp.start({
          dialect,
          // Logged at `info` as in production, into a stream that keeps nothing.
          logStream: { write: () => undefined },
          ...(redisUrl ? { env: { REDIS_URL: redisUrl } } : {}),
        });
        setup = await createOrderSetup(t);
        orderId = await createOrder(t, setup);
      });
      afterAll(async () => {
        await t.close();
      });

      it(`when each route is called ${REQUESTS} times, then its costs per request are printed`, async () => {
        for (const [label, request] of routesOf(setup, orderId)) {
          const headers = { 'x-api-key': setup.clinic.apiKey, ...request.headers };
          rows.push({ label, database, costs: await measureRequestCosts(t, { ...request, headers }, { requests: REQUESTS }) });
        }
      });
    });
  }
});
