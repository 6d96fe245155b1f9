import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deprecatedProperty } from '../../src/deprecations/deprecated-route.js';
import { applyDeprecationHeaders, deprecationHeaders, markDeprecatedUse } from '../../src/deprecations/deprecation-headers.js';
import { DEPRECATIONS, dayStart, registryProblems, type DeprecationEntry } from '../../src/deprecations/registry.js';
import { startDeprecationUsageFlush } from '../../src/deprecations/usage-flush.js';
import { DeprecationUsageTally } from '../../src/deprecations/usage-tally.js';
import type { Db } from '../../src/db/database.js';
import { TestApp } from '../helpers/test-app.js';

/** The spec's notice period (Versioning, 3.): at least 6 months between deprecation and removal. */
function sixMonthsAfter(day: string): number {
  const at = new Date(dayStart(day));
  at.setUTCMonth(at.getUTCMonth() + 6);
  return at.getTime();
}

const entry = (overrides: Partial<DeprecationEntry>): DeprecationEntry => ({
  code: 'example_parameter',
  kind: 'parameter',
  method: 'GET',
  route: '/api/external/example',
  name: 'old_name',
  deprecated_at: '2027-01-10',
  sunset_at: '2027-07-10',
  link: '/docs#/Example/getExample',
  replacement: 'new_name',
  ...overrides,
});

describe('the deprecation registry', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
  });
  afterAll(async () => t.close());

  it('when it loads, then every entry is sound: real days, sunset at least 6 months after the deprecation, a link', () => {
    expect(registryProblems(DEPRECATIONS)).toEqual([]);
    for (const deprecation of DEPRECATIONS) {
      expect(dayStart(deprecation.sunset_at), deprecation.code).toBeGreaterThanOrEqual(dayStart(deprecation.deprecated_at));
      expect(dayStart(deprecation.sunset_at), deprecation.code).toBeGreaterThanOrEqual(sixMonthsAfter(deprecation.deprecated_at));
      expect(deprecation.link.trim(), deprecation.code).not.toBe('');
      expect(deprecation.replacement.trim(), deprecation.code).not.toBe('');
    }
  });

  it('when a route entry is looked up, then the route exists and is marked deprecated, and every deprecated operation has an entry', () => {
    const routes = t.app.registeredRoutes();
    const all: readonly DeprecationEntry[] = DEPRECATIONS;
    const routeEntries = all.filter((d) => d.kind === 'route');
    for (const deprecation of routeEntries) {
      const route = routes.find((r) => r.method === deprecation.method && r.url === deprecation.route);
      expect(route, deprecation.code).toBeDefined();
      expect(route?.schema?.deprecated, deprecation.code).toBe(true);
    }
    const marked = routes.filter((r) => r.schema?.deprecated === true && r.method !== 'HEAD');
    expect(marked.map((r) => `${r.method} ${r.url}`).sort()).toEqual(routeEntries.map((d) => `${d.method} ${d.route}`).sort());
  });

  it('when an entry is unsound, then the registry names each problem', () => {
    expect(registryProblems([entry({ sunset_at: '2027-01-09' })])).toEqual([
      'deprecation example_parameter: sunset_at is earlier than deprecated_at (RFC 9745 §3)',
    ]);
    expect(registryProblems([entry({ deprecated_at: '2027-02-30' })])).toEqual([
      'deprecation example_parameter: deprecated_at must be a day, YYYY-MM-DD',
    ]);
    expect(registryProblems([entry({ link: '/docs/a guide' })])).toHaveLength(1);
    expect(registryProblems([entry({ link: '' })])).toHaveLength(1);
    expect(registryProblems([entry({ name: undefined })])).toEqual(['deprecation example_parameter: a parameter needs its name']);
    expect(registryProblems([entry({}), entry({})])).toEqual(['deprecation example_parameter: the code is used twice']);
  });

  it('when the headers of an entry are made, then they follow RFC 9745 and RFC 8594 exactly', () => {
    expect(deprecationHeaders(entry({}))).toEqual({
      Deprecation: `@${Date.UTC(2027, 0, 10) / 1000}`,
      Sunset: 'Sat, 10 Jul 2027 00:00:00 GMT',
      Link: '</docs#/Example/getExample>; rel="deprecation"; type="text/html"',
    });
  });

  it('when a property is deprecated, then its schema says deprecated: true with the notice', () => {
    const schema = deprecatedProperty(entry({}), { type: 'string', description: 'The old name.' });
    expect(schema).toEqual({
      type: 'string',
      deprecated: true,
      description: expect.stringMatching(/^\*\*Deprecated\*\* since 2027-01-10; it stops working on 2027-07-10.*The old name\.$/),
    });
  });
});

describe('deprecated parameters and fields in a handler', () => {
  it('when an answer uses two deprecated things, then it carries the earliest dates and both links', async () => {
    const app = Fastify();
    const later = entry({ code: 'later_field', kind: 'field', deprecated_at: '2027-03-01', sunset_at: '2027-09-01', link: '/b' });
    app.get('/', (_request, reply) => {
      applyDeprecationHeaders(reply, later);
      applyDeprecationHeaders(reply, entry({}));
      applyDeprecationHeaders(reply, later);
      return { ok: true };
    });
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.headers.deprecation).toBe(`@${Date.UTC(2027, 0, 10) / 1000}`);
    expect(res.headers.sunset).toBe('Sat, 10 Jul 2027 00:00:00 GMT');
    expect(res.headers.link).toBe(
      '</b>; rel="deprecation"; type="text/html", </docs#/Example/getExample>; rel="deprecation"; type="text/html"',
    );
    await app.close();
  });

  it('when a handler marks a use, then the answer warns and the use is counted for the credential (an OAuth client too)', async () => {
    const written: unknown[][] = [];
    const db = {
      insertInto: () => ({ values: (rows: unknown[]) => ({ onConflict: () => ({ execute: async () => written.push(rows) }) }) }),
    };
    const tally = new DeprecationUsageTally({
      db: db as unknown as Db,
      clock: () => new Date('2027-01-02T03:04:05.000Z'),
      logger: console,
    });
    const app = Fastify();
    app.addHook('onRequest', async (request) => {
      request.partner = { clinicId: 'clinic-1', oauthClientId: 'client-1' };
    });
    app.get('/', (_request, reply) => {
      markDeprecatedUse({ deprecationUsage: tally }, reply, 'webhook_delete_with_body');
      return { ok: true };
    });
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.headers.deprecation).toMatch(/^@\d+$/);
    await tally.flush();
    expect(written).toEqual([
      [
        {
          code: 'webhook_delete_with_body',
          credential_type: 'oauth_client',
          credential_id: 'client-1',
          clinic_id: 'clinic-1',
          use_count: 1,
          first_seen_at: '2027-01-02T03:04:05.000Z',
          last_seen_at: '2027-01-02T03:04:05.000Z',
        },
      ],
    ]);
    await app.close();
  });
});

describe('the usage tally', () => {
  const identity = { clinicId: 'clinic-1', apiKeyId: 'key-1' };

  it('when a write fails, then the counts are kept for the next flush and merged with newer ones', async () => {
    let failing = true;
    const written: { use_count: number }[][] = [];
    const db = {
      insertInto: () => ({
        values: (rows: { use_count: number }[]) => ({
          onConflict: () => ({
            execute: async () => {
              if (failing) throw new Error('database down');
              written.push(rows.map((row) => ({ ...row })));
            },
          }),
        }),
      }),
    };
    const warnings: string[] = [];
    const tally = new DeprecationUsageTally({
      db: db as unknown as Db,
      clock: () => new Date('2027-01-02T03:04:05.000Z'),
      logger: { warn: (_fields: unknown, message?: string) => void warnings.push(message ?? '') },
    });
    tally.record('webhook_delete_with_body', identity);
    tally.record('webhook_delete_with_body', identity);
    await tally.flush();
    expect(tally.size).toBe(1);
    expect(warnings).toEqual([expect.stringContaining('kept for the next flush')]);

    tally.record('webhook_delete_with_body', identity);
    failing = false;
    await tally.flush();
    expect(tally.size).toBe(0);
    expect(written.map((rows) => rows.map((row) => row.use_count))).toEqual([[3]]);
  });

  it('when the timer ticks, then what is counted is written; when stopped, it waits for the write under way', async () => {
    const written: unknown[][] = [];
    const db = {
      insertInto: () => ({ values: (rows: unknown[]) => ({ onConflict: () => ({ execute: async () => written.push(rows) }) }) }),
    };
    const tally = new DeprecationUsageTally({ db: db as unknown as Db, clock: () => new Date(), logger: console });
    let tick: () => void = () => undefined;
    let cancelled = false;
    const stop = startDeprecationUsageFlush(
      { deprecationUsage: tally },
      {
        scheduler: (_ms, run) => {
          tick = run;
          return () => (cancelled = true);
        },
      },
    );
    tally.record('webhook_delete_with_body', identity);
    expect(written).toHaveLength(0);
    tick();
    await stop();
    expect(cancelled).toBe(true);
    expect(written).toHaveLength(1);
  });

  it('when closed, then nothing more is counted', async () => {
    const db = { insertInto: () => ({ values: () => ({ onConflict: () => ({ execute: async () => undefined }) }) }) };
    const tally = new DeprecationUsageTally({ db: db as unknown as Db, clock: () => new Date(), logger: console });
    await tally.close();
    tally.record('webhook_delete_with_body', identity);
    expect(tally.size).toBe(0);
  });
});
