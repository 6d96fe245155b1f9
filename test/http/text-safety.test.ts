import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import { encodeCursor } from '../../src/db/keyset-page.js';
import { itemBody, orderBody } from '../helpers/factories.js';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { routeKey } from '../hardening/text-fields.js';
import {
  basesWithoutRoute,
  expectSameAnswerEverywhere,
  registeredApiRoutes,
  routesWithoutBase,
  sendApi,
  sendText,
  textTargetsOf,
} from '../hardening/text-targets.js';
import { BASES, createTextWorld, type TextWorld } from '../hardening/text-world.js';

/**
 * Text both databases store alike (issue 9, item 2): NUL, the other control characters and lone
 * surrogates are refused with a 400 naming the field, on SQLite and PostgreSQL alike (PostgreSQL
 * cannot store NUL; neither can store a lone surrogate as sent), in bodies, paths and query strings;
 * free-text fields also take tabs and line breaks. Everything else is stored as received.
 */

// Read from the application itself: a route or a field added later is fuzzed without being listed.
const ROUTES = await registeredApiRoutes();
const TARGETS = textTargetsOf(ROUTES);

const worlds = new Map<DialectName, TextWorld>();

beforeAll(async () => {
  for (const dialect of DIALECTS) worlds.set(dialect, await createTextWorld(await TestApp.start({ dialect })));
});
afterAll(async () => {
  for (const { t } of worlds.values()) await t.close();
});

describe('the fuzz’s reach', () => {
  it('when a partner or operator route has a text field, then the fuzz has a valid request to put values into', () => {
    expect(routesWithoutBase(ROUTES)).toEqual([]);
    expect(basesWithoutRoute(ROUTES)).toEqual([]);
  });
});

describe.each(DIALECTS)('text fields on %s', (dialect) => {
  const world = () => worlds.get(dialect)!;

  it.each(ROUTES.filter((route) => routeKey(route) in BASES).map((route) => [routeKey(route), route] as const))(
    'when the fuzz’s request of %s is sent as it is, then it succeeds',
    async (_name, route) => {
      const reply = await sendApi(world(), route, await BASES[routeKey(route)]!(world()));
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    },
  );

  it.each(TARGETS.map((target) => [target.name, target] as const))(
    'when %s holds a NUL character, then 400 names the field',
    async (_name, target) => {
      const { reply, field } = await sendText(world(), target, { text: '\u0000', at: 1, pick: 0 });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(reply.body.error.details ?? {})).toContain(field);
    },
  );

  it.each([
    '/api/admin/medication-requests',
    '/api/admin/webhook-deliveries',
    '/api/admin/webhook-endpoints',
    '/api/admin/audit-events',
  ])('when a cursor for %s is crafted to hold a NUL, then 400 names the cursor', async (path) => {
    // Its position reaches the database: it was a 500 on PostgreSQL and a page on SQLite.
    const cursor = encodeCursor({ createdAt: '2026-01-01T00:00:00.000Z\u0000', id: '00000000-0000-4000-8000-000000000001' });
    const reply = await world().t.admin.get(`${path}?cursor=${cursor}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.details).toEqual({ cursor: expect.stringMatching(/^is not a cursor this API returned/) });
  });

  it.each([
    ['another C0 control (BEL)', 'Ab\u0007cd'],
    ['DEL', 'Ab\u007fcd'],
    ['a C1 control', 'Ab\u0085cd'],
    ['a lone high surrogate', 'Ab\ud800cd'],
    ['a lone low surrogate', 'Ab\udc00cd'],
    ['a tab', 'Ab\tcd'],
    ['a line break', 'Ab\ncd'],
  ])('when a name holds %s, then 400 names the field', async (_name, value) => {
    const { t, setup } = world();
    const reply = await t
      .partner(setup.clinic.apiKey)
      .post('/api/external/patient', patientBody(setup.clinic.clinicId, { first_name: value }));
    expect(reply.status).toBe(400);
    expect(reply.body.error.details).toEqual({ first_name: 'must not contain control characters or invalid Unicode' });
  });

  it('when free-text notes hold tabs and line breaks, then they are stored exactly as sent', async () => {
    const { t, setup } = world();
    const notes = 'Line one\r\n\tindented line two\nemoji 💊 and accents é';
    const created = await t
      .partner(setup.clinic.apiKey)
      .post('/api/external/medication-order', orderBody(setup, { medication_requests: [itemBody({ notes })] }));
    expect(created.status).toBe(200);
    const read = await t
      .partner(setup.clinic.apiKey)
      .get(`/api/external/medication-order/${created.body.data.medication_request_id}`);
    expect(read.body.data.medication_requests[0].notes).toBe(notes);
  });

  it('when free-text notes hold a NUL or a lone surrogate, then 400 names them', async () => {
    const { t, setup } = world();
    for (const notes of ['a\u0000b', 'a\ud83db']) {
      const reply = await t
        .partner(setup.clinic.apiKey)
        .post('/api/external/medication-order', orderBody(setup, { medication_requests: [itemBody({ notes })] }));
      expect(reply.status).toBe(400);
      expect(reply.body.error.details['medication_requests[0].notes']).toMatch(/control characters/);
    }
  });
});

describe('arbitrary text in every text field', () => {
  it.each(TARGETS.map((target) => [target.name, target] as const))(
    'when any string is sent in %s, then every database answers the same status, and never a 5xx',
    async (_name, target) => {
      const everywhere = DIALECTS.map((dialect) => ({ dialect, world: worlds.get(dialect)! }));
      // A few values per field here; the fault suite (test/faults/text-fuzz.test.ts) sends many more.
      await expectSameAnswerEverywhere(target, everywhere, { seed: 20261123, numRuns: 4 });
    },
  );
});
