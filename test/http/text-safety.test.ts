import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/db/keyset-page.js';
import {
  createMedicationRequestSetup,
  itemBody,
  medicationRequestBody,
  type MedicationRequestSetup,
} from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Text both databases store alike (issue 9, item 2): NUL, the other control characters and lone
 * surrogates are refused with a 400 naming the field, on SQLite and PostgreSQL alike (PostgreSQL
 * cannot store NUL; neither can store a lone surrogate as sent), in bodies, paths and query strings;
 * free-text fields also take tabs and line breaks. Everything else is stored as received.
 */

interface Target {
  name: string;
  field: string;
  /** Sends `value` in the field; answers the reply. */
  send(app: TestApp, setup: MedicationRequestSetup, value: string): Promise<Reply>;
}

/**
 * Percent-encodes what a client could put on the wire: UTF-8, and a lone surrogate as the bytes
 * of its would-be UTF-8 form (%ED%A0%80), which is no valid UTF-8 (encodeURIComponent throws on it).
 */
function percentEncode(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

const TARGETS: Target[] = [
  {
    name: 'a practitioner name',
    field: 'last_name',
    send: (t, s, value) =>
      t.partner(s.clinic.apiKey).post('/api/external/practitioner', practitionerBody(s.clinic.clinicId, { last_name: value })),
  },
  {
    name: 'a patient name',
    field: 'first_name',
    send: (t, s, value) =>
      t.partner(s.clinic.apiKey).post('/api/external/patient', patientBody(s.clinic.clinicId, { first_name: value })),
  },
  {
    name: 'a patient address line',
    field: 'addresses[0].addressLine1',
    send: (t, s, value) =>
      t.partner(s.clinic.apiKey).post(
        '/api/external/patient',
        patientBody(s.clinic.clinicId, {
          addresses: [{ addressLine1: value, city: 'Sacramento', state: 'CA', postalCode: '95814' }],
        }),
      ),
  },
  {
    name: 'an order item’s notes (free text)',
    field: 'medication_requests[0].notes',
    send: (t, s, value) =>
      t
        .partner(s.clinic.apiKey)
        .post('/api/external/medication-order', medicationRequestBody(s, { medication_requests: [itemBody({ notes: value })] })),
  },
  {
    name: 'a carrier id in the path',
    field: 'carrierId',
    send: (t, s, value) =>
      t.partner(s.clinic.apiKey).get(`/api/external/carriers/${percentEncode(value)}/services?patientId=${s.patientId}`),
  },
  {
    name: 'a patient id in the query string',
    field: 'patientId',
    send: (t, s, value) =>
      t.partner(s.clinic.apiKey).get(`/api/external/carriers/fedex/services?patientId=${percentEncode(value)}`),
  },
];

const apps = new Map<string, { t: TestApp; setup: MedicationRequestSetup }>();

beforeAll(async () => {
  for (const dialect of DIALECTS) {
    const t = await TestApp.start({ dialect });
    apps.set(dialect, { t, setup: await createMedicationRequestSetup(t) });
  }
});
afterAll(async () => {
  for (const { t } of apps.values()) await t.close();
});

describe.each(DIALECTS)('text fields on %s', (dialect) => {
  const app = () => apps.get(dialect)!;

  it.each(TARGETS.map((target) => [target.name, target] as const))(
    'when %s holds a NUL character, then 400 names the field',
    async (_name, target) => {
      const { t, setup } = app();
      const reply = await target.send(t, setup, 'Ab\u0000cd');
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(reply.body.error.details ?? {})).toContain(target.field);
    },
  );

  it.each(['/api/admin/medication-requests', '/api/admin/webhook-deliveries', '/api/admin/audit-events'])(
    'when a cursor for %s is crafted to hold a NUL, then 400 names the cursor',
    async (path) => {
      // Its position reaches the database: it was a 500 on PostgreSQL and a page on SQLite.
      const cursor = encodeCursor({ createdAt: '2026-01-01T00:00:00.000Z\u0000', id: '00000000-0000-4000-8000-000000000001' });
      const reply = await app().t.admin.get(`${path}?cursor=${cursor}`);
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
    const { t, setup } = app();
    const reply = await t
      .partner(setup.clinic.apiKey)
      .post('/api/external/patient', patientBody(setup.clinic.clinicId, { first_name: value }));
    expect(reply.status).toBe(400);
    expect(reply.body.error.details).toEqual({ first_name: 'must not contain control characters or invalid Unicode' });
  });

  it('when free-text notes hold tabs and line breaks, then they are stored exactly as sent', async () => {
    const { t, setup } = app();
    const notes = 'Line one\r\n\tindented line two\nemoji 💊 and accents é';
    const created = await t
      .partner(setup.clinic.apiKey)
      .post('/api/external/medication-order', medicationRequestBody(setup, { medication_requests: [itemBody({ notes })] }));
    expect(created.status).toBe(200);
    const read = await t
      .partner(setup.clinic.apiKey)
      .get(`/api/external/medication-order/${created.body.data.medication_request_id}`);
    expect(read.body.data.medication_requests[0].notes).toBe(notes);
  });

  it('when free-text notes hold a NUL or a lone surrogate, then 400 names them', async () => {
    const { t, setup } = app();
    for (const notes of ['a\u0000b', 'a\ud83db']) {
      const reply = await t
        .partner(setup.clinic.apiKey)
        .post('/api/external/medication-order', medicationRequestBody(setup, { medication_requests: [itemBody({ notes })] }));
      expect(reply.status).toBe(400);
      expect(reply.body.error.details['medication_requests[0].notes']).toMatch(/control characters/);
    }
  });
});

/** Any UTF-16 code unit (lone surrogates and controls included), or any Unicode code point. */
const anyText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('\u0000', 'a\u0000', '\ud800', '\udfff', '\u0085', ' ', 'Ab', 'José Ñandú', '💊'),
);

describe('arbitrary text in every kind of field', () => {
  it('when any string is sent, then every database answers the same status, and never a 5xx', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TARGETS), anyText, async (target, value) => {
        const statuses: number[] = [];
        for (const dialect of DIALECTS) {
          const { t, setup } = apps.get(dialect)!;
          statuses.push((await target.send(t, setup, value)).status);
        }
        expect(statuses[0], `${target.name}: a 5xx`).not.toBeGreaterThanOrEqual(500);
        expect(new Set(statuses).size).toBe(1);
      }),
      { seed: 20261123, numRuns: 150 },
    );
  });
});
