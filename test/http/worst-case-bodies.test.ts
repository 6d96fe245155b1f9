import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/config.js';
import {
  createMedicationRequestSetup,
  itemBody,
  medicationRequestBody,
  type MedicationRequestSetup,
} from '../helpers/factories.js';
import { patientBody } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Bounded work for any input (issue 9, item 1): a body just under the 1 MiB limit, shaped to make
 * validation expensive, gets a small answer (under 16 KB; the unbounded validation answered 142 MB
 * for the first case). Its time is not asserted here: a loaded CI machine would make a stopwatch
 * flaky; the 100 ms belongs to the benchmark and the fault suite.
 */
const MAX_ANSWER_BYTES = 16 * 1024;

/** Fills `make(i)` entries into a JSON array until the body would pass the limit. */
function fill(prefix: string, suffix: string, make: (i: number) => string): string {
  const parts: string[] = [];
  let size = prefix.length + suffix.length;
  for (let i = 0; ; i++) {
    const next = make(i);
    if (size + next.length + 1 >= BODY_LIMIT_BYTES - 16) break;
    parts.push(next);
    size += next.length + 1;
  }
  return `${prefix}${parts.join(',')}${suffix}`;
}

describe.each(DIALECTS)('worst-case bodies on %s', (dialect) => {
  let t: TestApp;
  let setup: MedicationRequestSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createMedicationRequestSetup(t);
  });
  afterAll(async () => t.close());

  const send = async (url: string, payload: string) => {
    expect(Buffer.byteLength(payload)).toBeLessThan(BODY_LIMIT_BYTES);
    const response = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': setup.clinic.apiKey, 'content-type': 'application/json' },
      payload,
    });
    return { status: response.statusCode, body: response.body };
  };

  const orderArrayEnds = () => {
    const head = JSON.stringify(medicationRequestBody(setup, { medication_requests: [] }));
    const [prefix, suffix] = head.split('"medication_requests":[]') as [string, string];
    return { prefix: `${prefix}"medication_requests":[`, suffix: `]${suffix}` };
  };

  const cases: [string, string, () => string][] = [
    [
      'an order with hundreds of thousands of empty items',
      '/api/external/medication-order',
      () => {
        const { prefix, suffix } = orderArrayEnds();
        return fill(prefix, suffix, () => '{}');
      },
    ],
    [
      'an order with thousands of invalid items',
      '/api/external/medication-order',
      () => {
        const { prefix, suffix } = orderArrayEnds();
        return fill(prefix, suffix, (i) => JSON.stringify(itemBody({ quantity: -i, unknown_field: 'x' })));
      },
    ],
    [
      'a patient with a hundred thousand addresses',
      '/api/external/patient',
      () => {
        const body = JSON.stringify(patientBody(setup.clinic.clinicId, { addresses: [] }));
        const [prefix, suffix] = body.split('"addresses":[]') as [string, string];
        return fill(`${prefix}"addresses":[`, `]${suffix}`, () => '{"addressLine1":""}');
      },
    ],
    [
      'a patient with tens of thousands of unknown keys',
      '/api/external/patient',
      () => {
        const body = JSON.stringify(patientBody(setup.clinic.clinicId));
        return fill(`${body.slice(0, -1)},`, '}', (i) => `"unknown_${i}":1`).replace(',,', ',');
      },
    ],
    [
      'a patient whose one unknown key is almost a megabyte long',
      '/api/external/patient',
      () => {
        const body = JSON.stringify(patientBody(setup.clinic.clinicId));
        return `${body.slice(0, -1)},"${'k'.repeat(BODY_LIMIT_BYTES - body.length - 64)}":1}`;
      },
    ],
    [
      'a patient name almost a megabyte long',
      '/api/external/patient',
      () => JSON.stringify(patientBody(setup.clinic.clinicId, { first_name: 'n'.repeat(BODY_LIMIT_BYTES - 1024) })),
    ],
    [
      'deep nesting inside a known field',
      '/api/external/patient',
      () => {
        const depth = 100_000;
        return JSON.stringify(patientBody(setup.clinic.clinicId, { first_name: '__DEEP__' })).replace(
          '"__DEEP__"',
          `${'['.repeat(depth)}${']'.repeat(depth)}`,
        );
      },
    ],
  ];

  it.each(cases)('when the body is %s, then a 4xx answer under 16 KB comes back', async (_name, url, make) => {
    const answer = await send(url, make());
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(Buffer.byteLength(answer.body)).toBeLessThan(MAX_ANSWER_BYTES);
  });

  it('when a body holds more unknown fields than are listed, then one problem says how many, without naming them', async () => {
    const extra = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`unknown_${i}`, i]));
    const answer = await send('/api/external/patient', JSON.stringify({ ...patientBody(setup.clinic.clinicId), ...extra }));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.details).toEqual({ body: 'has 25 fields that are not known (at most 20 are listed)' });
  });

  it('when a body has more problems than details holds, then 20 are named and the message says how many more', async () => {
    const items = Array.from({ length: 20 }, () => itemBody({ quantity: -1 }));
    const body = medicationRequestBody(setup, { medication_requests: items, carrier_id: undefined, service_id: 7 });
    const answer = await send('/api/external/medication-order', JSON.stringify(body));
    const { error } = JSON.parse(answer.body);
    expect(answer.status).toBe(400);
    expect(Object.keys(error.details)).toHaveLength(20);
    expect(error.message).toMatch(/\(and [1-9]\d* more problems?\)$/);
  });

  it('when an unknown field name is long, then the answer repeats only its first 64 characters', async () => {
    const name = `x${'y'.repeat(500)}`;
    const answer = await send('/api/external/patient', JSON.stringify({ ...patientBody(setup.clinic.clinicId), [name]: 1 }));
    const { error } = JSON.parse(answer.body);
    expect(Object.keys(error.details)).toEqual([`${name.slice(0, 64)}…`]);
    expect(answer.body).not.toContain(name.slice(0, 65));
  });

  it('when an unknown path is as long as the headers allow, then the 404 repeats only its beginning', async () => {
    const path = `/api/external/${'p'.repeat(15_000)}`;
    const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': setup.clinic.apiKey } });
    expect(response.statusCode).toBe(404);
    expect(Buffer.byteLength(response.body)).toBeLessThan(1024);
  });

  it('when a record holds more entries than its maximum, then one problem says so before any entry is checked', async () => {
    const statePrices = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`S${i}`, 'not a price']));
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/carriers/fedex/services',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ id: 'fedex_bulk', name: 'Bulk', price: 10, state_prices: statePrices }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual({ state_prices: 'must have at most 60 entries' });
  });
});
