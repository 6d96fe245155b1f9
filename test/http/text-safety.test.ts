import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import { encodeCursor } from '../../src/db/keyset-page.js';
import { TEXT_MESSAGES } from '../../src/shared/text.js';
import { itemBody, orderBody } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { OPERATOR_TOKEN, TestApp } from '../helpers/test-app.js';
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
  it('when a partner, operator or portal route has a text field, then the fuzz has a valid request to put values into', () => {
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
    const reply = await world().t.operator.get(`${path}?cursor=${cursor}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.details).toEqual({ cursor: expect.stringMatching(/^is not a cursor this API returned/) });
  });

  it.each(['/api/portal/deliveries', '/api/portal/sandbox/orders', '/api/portal/requests'])(
    'when a cursor for the portal\u2019s %s is crafted to hold a NUL, then 400 names the cursor',
    async (path) => {
      const cursor = encodeCursor({ createdAt: '2026-01-01T00:00:00.000Z\u0000', id: '00000000-0000-4000-8000-000000000001' });
      const reply = await world().t.request('GET', `${path}?cursor=${cursor}`, { headers: world().portal.headers });
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toEqual({ cursor: expect.stringMatching(/^is not a cursor this API returned/) });
    },
  );

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

/**
 * Text that means what it shows (issue 21, item 5): bytes that are not UTF-8 are refused naming the
 * field, names, addresses and free text are stored NFC-normalized, bidirectional controls are refused
 * everywhere and zero-width characters in names and addresses (in other text, only between two
 * letters), and a name holds a letter.
 */
describe.each(DIALECTS)('text that means what it shows on %s', (dialect) => {
  const world = () => worlds.get(dialect)!;
  const MARK = 'XXBADXX';

  /** The body as JSON with `bytes` in place of MARK (which the body holds once). */
  const withBytes = (body: unknown, bytes: number[]): Buffer => {
    const [before = '', after = ''] = JSON.stringify(body).split(MARK);
    return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
  };
  const postBytes = async (url: string, payload: Buffer, auth: 'partner' | 'admin' = 'partner') => {
    const { t, setup } = world();
    const credential = auth === 'partner' ? { 'x-api-key': setup.clinic.apiKey } : { authorization: `Bearer ${OPERATOR_TOKEN}` };
    const response = await t.app.inject({
      method: 'POST',
      url,
      headers: { ...credential, 'content-type': 'application/json', accept: 'application/json' },
      payload,
    });
    return { status: response.statusCode, body: response.json() };
  };
  const postPatient = (overrides: Record<string, unknown>) => {
    const { t, setup } = world();
    return t.partner(setup.clinic.apiKey).post('/api/external/patient', patientBody(setup.clinic.clinicId, overrides));
  };
  const postPractitioner = (overrides: Record<string, unknown>) => {
    const { t, setup } = world();
    return t
      .partner(setup.clinic.apiKey)
      .post(
        '/api/external/practitioner',
        practitionerBody(setup.clinic.clinicId, { email: `p${Date.now()}@example.com`, ...overrides }),
      );
  };
  const postOrder = (item: Record<string, unknown>) => {
    const { t, setup } = world();
    return t
      .partner(setup.clinic.apiKey)
      .post('/api/external/medication-order', orderBody(setup, { medication_requests: [itemBody(item)] }));
  };
  const readPatient = async (id: string) => {
    const { t, setup } = world();
    return (await t.partner(setup.clinic.apiKey).get(`/api/external/patient/${id}`)).body.data;
  };
  const readOrderItem = async (id: string) => {
    const { t, setup } = world();
    return (await t.partner(setup.clinic.apiKey).get(`/api/external/medication-order/${id}`)).body.data.medication_requests[0];
  };

  describe('invalid UTF-8', () => {
    it.each([
      ['a byte that never starts UTF-8 (FF)', [0xff]],
      ['a sequence cut short (C3)', [0xc3]],
      ['an overlong encoding (C0 AF)', [0xc0, 0xaf]],
      ['a surrogate encoded as UTF-8 (ED A0 80)', [0xed, 0xa0, 0x80]],
      ['a code point above U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]],
    ])('when a patient\u2019s first_name holds %s, then 400 names first_name and nothing is stored', async (_name, bytes) => {
      const { t, setup } = world();
      const count = async () =>
        Number(
          (
            await t.ctx.db
              .selectFrom('patients')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const body = patientBody(setup.clinic.clinicId, { first_name: `Gr${MARK}ace` });
      const reply = await postBytes('/api/external/patient', withBytes(body, bytes));
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
      expect(reply.body.error.details).toEqual({ first_name: 'must be valid UTF-8' });
      expect(await count()).toBe(before);
    });

    it('when the invalid bytes are in a nested field, then 400 names its path', async () => {
      const { setup } = world();
      const patient = patientBody(setup.clinic.clinicId, {
        addresses: [{ addressLine1: '2 Elm St', city: `Sacra${MARK}mento`, state: 'CA', postalCode: '95814' }],
      });
      const reply = await postBytes('/api/external/patient', withBytes(patient, [0xff, 0xfe]));
      expect(reply.body.error.details).toEqual({ 'addresses[0].city': 'must be valid UTF-8' });

      const order = orderBody(setup, { medication_requests: [itemBody(), itemBody({ notes: `Keep \u{1F48A} cold ${MARK}` })] });
      const ordered = await postBytes('/api/external/medication-order', withBytes(order, [0xe2, 0x82]));
      expect(ordered.status).toBe(400);
      expect(ordered.body.error.details).toEqual({ 'medication_requests[1].notes': 'must be valid UTF-8' });
    });

    it('when a body holds U+FFFD sent as valid UTF-8 before the invalid bytes, then the field with the invalid bytes is named, and U+FFFD alone is stored as sent', async () => {
      const { setup } = world();
      // first_name comes first in the body: its U+FFFD (bytes EF BF BD) is before the invalid byte.
      const body = patientBody(setup.clinic.clinicId, { first_name: 'Gr\ufffdce', last_name: `Hop${MARK}per` });
      expect(JSON.stringify(body).indexOf('\ufffd')).toBeLessThan(JSON.stringify(body).indexOf(MARK));
      const reply = await postBytes('/api/external/patient', withBytes(body, [0x80]));
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toEqual({ last_name: 'must be valid UTF-8' });

      const created = await postPatient({ first_name: 'Gr\ufffdce' });
      expect(created.status).toBe(200);
      expect((await readPatient(created.body.data.patient_id)).first_name).toBe('Gr\ufffdce');
    });

    it('when the invalid bytes are in a key, then 400 names the body', async () => {
      const { setup } = world();
      const body = { ...patientBody(setup.clinic.clinicId), [`x${MARK}`]: 1 };
      const reply = await postBytes('/api/external/patient', withBytes(body, [0xff]));
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toEqual({ body: 'must be valid UTF-8' });
    });

    it('when a body near the size limit holds invalid bytes at its end, or nests deeper than the limit before them, then the field or the body is named', async () => {
      const { setup } = world();
      const long = orderBody(setup, { medication_requests: [itemBody({ notes: `${'a'.repeat(900_000)}${MARK}` })] });
      const named = await postBytes('/api/external/medication-order', withBytes(long, [0xff]));
      expect(named.status).toBe(400);
      expect(named.body.error.details).toEqual({ 'medication_requests[0].notes': 'must be valid UTF-8' });
      const deep = Buffer.concat([Buffer.from(`${'{"a":'.repeat(40)}"`), Buffer.from([0xff])]);
      const refused = await postBytes('/api/external/patient', deep);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual({ body: 'must be valid UTF-8' });
    });

    it('when an operator\u2019s body holds invalid UTF-8, then 400 names the field', async () => {
      const reply = await postBytes('/api/admin/clinics', withBytes({ name: `North${MARK}side` }, [0xc3, 0x28]), 'admin');
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toEqual({ name: 'must be valid UTF-8' });
    });
  });

  describe('names and addresses', () => {
    it.each([
      ['a right-to-left override', 'first_name', 'Jane\u202eeod', TEXT_MESSAGES.bidi],
      ['a left-to-right isolate', 'last_name', 'Do\u2066e', TEXT_MESSAGES.bidi],
      ['only zero-width joiners', 'first_name', '\u200d\u200d', TEXT_MESSAGES.zeroWidth],
      ['a zero-width space', 'last_name', 'Ho\u200bpper', TEXT_MESSAGES.zeroWidth],
      ['a byte order mark', 'middle_name', 'M\ufeffay', TEXT_MESSAGES.zeroWidth],
      ['no letter', 'first_name', '1234', TEXT_MESSAGES.noLetter],
      ['only punctuation', 'last_name', '--', TEXT_MESSAGES.noLetter],
      ['a middle name of no letter', 'middle_name', '.', TEXT_MESSAGES.noLetter],
    ])('when a patient\u2019s name holds %s, then 400 names %s', async (_name, field, value, message) => {
      const reply = await postPatient({ [field]: value });
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toEqual({ [field]: message });
    });

    it.each([
      ['a right-to-left override', 'first_name', 'Jane\u202eeod', TEXT_MESSAGES.bidi],
      ['only zero-width joiners', 'last_name', '\u200d\u200d', TEXT_MESSAGES.zeroWidth],
      ['no letter', 'first_name', '42', TEXT_MESSAGES.noLetter],
      ['an address line with a pop directional formatting', 'address_line_1', '1 Main\u202c St', TEXT_MESSAGES.bidi],
      ['an address line with a word joiner', 'address_line_2', 'Suite\u20601', TEXT_MESSAGES.zeroWidth],
      ['a city with a zero-width joiner', 'city', 'Aus\u200dtin', TEXT_MESSAGES.zeroWidth],
    ])('when a practitioner\u2019s field holds %s, then 400 names %s', async (_name, field, value, message) => {
      const reply = await postPractitioner({ [field]: value });
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toEqual({ [field]: message });
    });

    it('when a patient\u2019s address holds a bidirectional or zero-width character, then 400 names the field', async () => {
      const reply = await postPatient({
        addresses: [
          { addressLine1: '2 Elm\u2067 St', addressLine2: 'Apt\u200c3', city: 'Sacramento', state: 'CA', postalCode: '95814' },
        ],
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error.details).toEqual({
        'addresses[0].addressLine1': TEXT_MESSAGES.bidi,
        'addresses[0].addressLine2': TEXT_MESSAGES.zeroWidth,
      });
    });

    it('when a clinic, a formulary medication or an ordered medication is named without a letter or with a bidirectional control, then 400 names it', async () => {
      const { t, setup } = world();
      const clinic = await t.operator.post('/api/admin/clinics', { name: '1234' });
      expect(clinic.status).toBe(400);
      expect(clinic.body.error.details).toEqual({ name: TEXT_MESSAGES.noLetter });
      const medication = await t.operator.post(`/api/admin/clinics/${setup.clinic.clinicId}/medications`, { name: '\u200d' });
      expect(medication.status).toBe(400);
      expect(medication.body.error.details).toEqual({ name: TEXT_MESSAGES.zeroWidth });
      const order = await postOrder({ medication: 'Sema\u202eglutide' });
      expect(order.status).toBe(400);
      expect(order.body.error.details).toEqual({ 'medication_requests[0].medication': TEXT_MESSAGES.bidi });
    });

    it('when a staff member\u2019s name has no letter or holds a right-to-left override, then 400 names it', async () => {
      const base = await BASES['POST /api/admin/staff']!(world());
      for (const [name, message] of [
        ['1234', TEXT_MESSAGES.noLetter],
        ['Jane\u202eeod', TEXT_MESSAGES.bidi],
      ] as const) {
        const reply = await world().t.operator.post('/api/admin/staff', { ...(base.body as object), name });
        expect(reply.status).toBe(400);
        expect(reply.body.error.details).toEqual({ name: message });
      }
    });

    it('when names are written in other scripts, then they are stored', async () => {
      const created = await postPatient({ first_name: 'Zoë', middle_name: 'ناصر', last_name: '李' });
      expect(created.status).toBe(200);
      const patient = await readPatient(created.body.data.patient_id);
      expect([patient.first_name, patient.middle_name, patient.last_name]).toEqual(['Zoë', 'ناصر', '李']);
    });

    it('when names and an address are sent decomposed (NFD), then they are stored composed (NFC)', async () => {
      const created = await postPatient({
        first_name: 'Jose\u0301',
        last_name: 'Mu\u0308ller',
        addresses: [{ addressLine1: '2 Rue de l\u2019E\u0301glise', city: 'Sacramento', state: 'CA', postalCode: '95814' }],
      });
      expect(created.status).toBe(200);
      const patient = await readPatient(created.body.data.patient_id);
      expect(patient.first_name).toBe('Jos\u00e9');
      expect(patient.last_name).toBe('M\u00fcller');
      expect(patient.addresses[0].addressLine1).toBe('2 Rue de l\u2019\u00c9glise');
    });
  });

  describe('free text and other text', () => {
    it.each([
      ['notes', { notes: 'Take \u202etwo\u202c daily' }, TEXT_MESSAGES.bidi],
      ['direction', { direction: 'Inject \u2068weekly\u2069' }, TEXT_MESSAGES.bidi],
      [
        'reason_for_compounding_additional_context',
        { reason_for_compounding_additional_context: 'Allergy \u200d to dye' },
        TEXT_MESSAGES.zeroWidthOutsideWord,
      ],
      ['notes', { notes: '\u200bStart' }, TEXT_MESSAGES.zeroWidthOutsideWord],
      ['notes', { notes: 'End\ufeff' }, TEXT_MESSAGES.zeroWidthOutsideWord],
      ['dose', { dose: '10\u202emg' }, TEXT_MESSAGES.bidi],
      ['flavor', { flavor: 'Mint\u200b' }, TEXT_MESSAGES.zeroWidthOutsideWord],
    ])(
      'when an item\u2019s %s holds a bidirectional control or a stray zero-width character, then 400 names it',
      async (field, item, message) => {
        const reply = await postOrder(item);
        expect(reply.status).toBe(400);
        expect(reply.body.error.details).toEqual({ [`medication_requests[0].${field}`]: message });
      },
    );

    it('when free text holds zero-width joiners a language needs (within a word, or an emoji), then it is stored as sent', async () => {
      // Persian "I want" with a ZWNJ, Devanagari kṣa with a ZWJ, a family emoji.
      const notes = 'می\u200cخواهم · क्\u200dष · \u{1f468}\u200d\u{1f469}\u200d\u{1f467}';
      const direction = 'Take one daily (Thai: กิน\u200bยา)';
      const created = await postOrder({ notes, direction });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const item = await readOrderItem(created.body.data.medication_request_id);
      expect([item.notes, item.direction]).toEqual([notes, direction]);
    });

    it('when free text is sent decomposed (NFD), then it is stored composed (NFC)', async () => {
      const created = await postOrder({ notes: 'Cafe\u0301 au lait flavour, cre\u0300me' });
      expect(created.status).toBe(200);
      expect((await readOrderItem(created.body.data.medication_request_id)).notes).toBe('Caf\u00e9 au lait flavour, cr\u00e8me');
    });
  });
});
