import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOrder,
  createOrderSetup,
  createPatient,
  expectOk,
  getOrder,
  itemBody,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { DEFAULT_ALLERGY_CLASSES } from '../../src/patients/allergy-classes.js';

/**
 * The operator's allergy classes (issue 39, item 5; docs/compounding.md#allergy-classes): read with
 * the defaults, set and removed with the operator token, audited, and compared at the next intake.
 */
const AMOXICILLIN = {
  name: 'Amoxicillin suspension',
  ingredients: [{ name: 'Amoxicillin trihydrate', strength: '50', unit: 'mg/mL', active: true }],
  preparation: 'non_sterile',
  bud_category: 'aqueous_preserved',
  storage: 'refrigerated',
};
const PENICILLINS = { label: 'Penicillins', names: ['penicillin', 'penicillins'], members: ['amoxicillin', 'ampicillin'] };

describe.each(DIALECTS)('the allergy classes on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t, { formulary: [] });
    expectOk(await t.operator.post(`/api/admin/clinics/${setup.clinic.clinicId}/medications`, AMOXICILLIN), 'add');
  });
  afterAll(async () => t.close());

  const classes = async () => expectOk(await t.operator.get('/api/admin/allergy-classes'), 'list').classes as any[];
  const auditOf = (code: string) =>
    t.ctx.db.selectFrom('audit_events').select(['action', 'resource_type']).where('resource_id', '=', code).execute();

  it('when nothing was set, then the defaults are listed in the documented order, each a default', async () => {
    const listed = await classes();
    expect(listed.map((c) => c.code)).toEqual(DEFAULT_ALLERGY_CLASSES.map((c) => c.code));
    expect(listed[0]).toEqual({ ...DEFAULT_ALLERGY_CLASSES[0], source: 'default', replaces_default: false, updated_at: null });
  });

  it('when the operator adds a class, then the next order of a covered ingredient is held for an allergy of that class, and removing it ends that', async () => {
    const parties = {
      ...setup,
      patientId: await createPatient(t, setup.clinic, {
        practitionerId: setup.practitionerId,
        overrides: { allergies: [{ substance: 'Penicillin', severity: 'severe' }] },
      }),
    };
    const item = itemBody({ medication: AMOXICILLIN.name, dose: '250mg', quantity: 100, unit_of_measure: 'mL' });
    expect((await getOrder(t, setup.clinic, await createOrder(t, parties, { medication_requests: [item] }))).status).toBe(
      'pending',
    );

    const put = await t.operator.put('/api/admin/allergy-classes/penicillins', {
      ...PENICILLINS,
      names: ['penicillin', ' Penicillin ', 'penicillins'],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data).toMatchObject({ code: 'penicillins', names: ['penicillin', 'penicillins'], source: 'operator' });
    expect((await classes()).at(-1)).toMatchObject({ code: 'penicillins', replaces_default: false });

    const held = await getOrder(t, setup.clinic, await createOrder(t, parties, { medication_requests: [item] }));
    expect(held.hold.reason_code).toBe('allergy_conflict');
    expect(held.hold.message).toContain('allergy to Penicillin (severe; class: Penicillins)');

    const removed = await t.operator.delete('/api/admin/allergy-classes/penicillins');
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ code: 'penicillins', class: null });
    expect((await classes()).some((c) => c.code === 'penicillins')).toBe(false);
    const audited = await auditOf('penicillins');
    expect(audited).toHaveLength(2);
    expect(audited).toEqual(
      expect.arrayContaining([
        { action: 'update', resource_type: 'allergy_class' },
        { action: 'delete', resource_type: 'allergy_class' },
      ]),
    );
  });

  it('when the operator sets a default\u2019s code, then it replaces the default, and removing it brings the default back', async () => {
    const put = await t.operator.put('/api/admin/allergy-classes/peg', { label: 'PEG', names: ['peg'], members: ['macrogol'] });
    expect(put.body.data).toMatchObject({ code: 'peg', members: ['macrogol'], source: 'operator', replaces_default: true });
    expect((await classes()).filter((c) => c.code === 'peg')).toHaveLength(1);
    const removed = await t.operator.delete('/api/admin/allergy-classes/peg');
    expect(removed.body.data.class).toMatchObject({ code: 'peg', source: 'default' });
  });

  it('when a default the operator never set is removed, then 409; an unknown code, 404', async () => {
    const standard = await t.operator.delete('/api/admin/allergy-classes/sulfonamides');
    expect(standard.status).toBe(409);
    expect(standard.body.error.details).toEqual({ code: 'is a default class the operator never set' });
    expect((await t.operator.delete('/api/admin/allergy-classes/no_such_class')).status).toBe(404);
  });

  it('when a body is wrong, then 400 naming the field and nothing is set', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...PENICILLINS, names: ['---'] }, 'names[0]'],
      [{ ...PENICILLINS, members: [] }, 'members'],
      [{ ...PENICILLINS, members: ['amox\u202Eicillin'] }, 'members[0]'],
      [{ ...PENICILLINS, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await t.operator.put('/api/admin/allergy-classes/penicillins', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(Object.keys(res.body.error.details)).toContain(field);
    }
    expect((await t.operator.put('/api/admin/allergy-classes/Not-A-Code', PENICILLINS)).status).toBe(400);
    expect((await classes()).some((c) => c.code === 'penicillins')).toBe(false);
  });
});
