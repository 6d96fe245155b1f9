import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../audit/support.js';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** The patient's allergies (issue 30, item 6; docs/practitioners-and-patients.md#allergies), over HTTP as a partner. */
const URL_ = '/api/external/patient';
const ALLERGIES = [
  { substance: '  Naltrexone ', reaction: 'hives', severity: 'severe' },
  { substance: 'Latex', reaction: '', severity: 'mild' },
  { substance: 'Sulfa drugs' },
];
const READ_BACK = [
  { substance: 'Naltrexone', reaction: 'hives', severity: 'severe' },
  { substance: 'Latex', reaction: null, severity: 'mild' },
  { substance: 'Sulfa drugs', reaction: null, severity: null },
];

describe.each(DIALECTS)('the patient\u2019s allergies on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinic = await t.createClinic();
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  const create = (fields: Record<string, unknown>, c: TestClinic = clinic) =>
    t.partner(c.apiKey).post(URL_, patientBody(c.clinicId, fields));
  const read = async (id: string) => (await t.partner(clinic.apiKey).get(`${URL_}/${id}`)).body.data;
  const replace = (id: string, body: unknown, c: TestClinic = clinic) => t.partner(c.apiKey).put(`${URL_}/${id}/allergies`, body);
  const patientCount = async () => (await t.ctx.db.selectFrom('patients').select('id').execute()).length;

  function expectRefused(res: { status: number; body: any }, field: string): void {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(Object.keys(res.body.error.details)).toContain(field);
  }

  it('when a patient is created with allergies, then the read shows them tidied, absent fields null', async () => {
    const res = await create({ allergies: ALLERGIES });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const patient = await read(res.body.data.patient_id);
    expect(patient.allergies).toEqual(READ_BACK);
    expect(patient.no_known_allergies).toBe(false);
  });

  it('when a patient is created with no known allergies, then the read shows an empty list and true', async () => {
    const res = await create({ no_known_allergies: true });
    expect(res.status).toBe(200);
    expect(await read(res.body.data.patient_id)).toMatchObject({ allergies: [], no_known_allergies: true });
  });

  it('when no known allergies comes with a non-empty list, then 400 naming no_known_allergies and nothing is stored', async () => {
    const before = await patientCount();
    expectRefused(await create({ allergies: [{ substance: 'Latex' }], no_known_allergies: true }), 'no_known_allergies');
    expect(await patientCount()).toBe(before);
  });

  it('when an allergy holds a NUL or a bidirectional control, then 400 naming the field and nothing is stored', async () => {
    const before = await patientCount();
    expectRefused(await create({ allergies: [{ substance: 'Latex\u0000' }] }), 'allergies[0].substance');
    expectRefused(await create({ allergies: [{ substance: 'Latex', reaction: 'hives\u202e' }] }), 'allergies[0].reaction');
    expectRefused(await create({ allergies: [{ substance: 'Latex', severity: 'deadly' }] }), 'allergies[0].severity');
    expectRefused(await create({ allergies: Array.from({ length: 51 }, () => ({ substance: 'Latex' })) }), 'allergies');
    expect(await patientCount()).toBe(before);
  });

  it('when the allergies are replaced, then the read shows the new list only and the change is audited', async () => {
    const id = (await create({ allergies: ALLERGIES })).body.data.patient_id as string;
    const res = await replace(id, { allergies: [{ substance: 'Penicillin', reaction: 'rash', severity: 'moderate' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('Patient allergies updated');
    expect(res.body.data.allergies).toEqual([{ substance: 'Penicillin', reaction: 'rash', severity: 'moderate' }]);
    expect((await read(id)).allergies).toEqual([{ substance: 'Penicillin', reaction: 'rash', severity: 'moderate' }]);
    expect((await auditRows(t.ctx)).filter((r) => r.resource_id === id).map((r) => r.action)).toContain('update');

    const none = await replace(id, { allergies: [], no_known_allergies: true });
    expect(none.status).toBe(200);
    expect(await read(id)).toMatchObject({ allergies: [], no_known_allergies: true });
  });

  it('when a replacement is refused, then the allergies stay as they were', async () => {
    const id = (await create({ allergies: ALLERGIES })).body.data.patient_id as string;
    expectRefused(await replace(id, { allergies: [{ substance: 'Latex' }], no_known_allergies: true }), 'no_known_allergies');
    expectRefused(await replace(id, { allergies: [{ substance: '\u2066Latex' }] }), 'allergies[0].substance');
    expectRefused(await replace(id, { no_known_allergies: true }), 'allergies');
    expect((await read(id)).allergies).toEqual(READ_BACK);
  });

  it('when another clinic\u2019s patient is named, then 404 and its allergies are untouched', async () => {
    const foreign = (await create({ allergies: ALLERGIES }, other)).body.data.patient_id as string;
    const res = await replace(foreign, { allergies: [] });
    expect(res.status).toBe(404);
    const row = await t.ctx.db.selectFrom('patients').select('allergies').where('id', '=', foreign).executeTakeFirstOrThrow();
    expect(JSON.parse(row.allergies ?? 'null')).toEqual(READ_BACK);
  });
});
