import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows, refuseAuditRows } from '../audit/support.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';

/**
 * A formula on each formulary entry (issue 30, item 1; docs/compounding.md), over HTTP as the
 * operator, a pharmacist and a partner call it.
 */
const HOST = 'console.example';
const OWN_ORIGIN = `http://${HOST}`;
const PASSWORD = 'correct horse battery staple';

const FORMULA = {
  ingredients: [
    { name: 'Semaglutide  sodium', strength: '2.5', unit: 'mg/mL', active: true },
    { name: 'Benzyl alcohol', strength: '0.9', unit: '%', active: false },
  ],
  preparation: 'non_sterile',
  bud_category: 'aqueous_preserved',
  storage: 'refrigerated',
  controlled_schedule: null,
  beyond_use_days: 30,
  restricted_states: ['sc', 'AL', 'SC'],
} as const;

const NO_FORMULA = {
  ingredients: null,
  preparation: null,
  bud_category: null,
  storage: null,
  controlled_schedule: null,
  beyond_use_days: null,
  restricted_states: null,
  sterile_condition: null,
  formula_version: null,
};

describe.each(DIALECTS)('formulary entries with a formula on %s', (dialect) => {
  let t: TestApp;
  let names = 0;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  const newName = () => `Compound ${++names}`;
  const medications = (clinicId: string) => `/api/admin/clinics/${clinicId}/medications`;

  async function addEntry(clinicId: string, body: Record<string, unknown> = {}): Promise<any> {
    const res = await t.operator.post(medications(clinicId), { name: newName(), ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  async function storedRow(medicationId: string) {
    return t.ctx.db.selectFrom('medications').selectAll().where('id', '=', medicationId).executeTakeFirstOrThrow();
  }

  function expectRefused(res: { status: number; body: any }, field: string): void {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.success).toBe(false);
    expect(Object.keys(res.body.details ?? res.body.error?.details ?? {})).toContain(field);
  }

  describe('POST', () => {
    it('when an entry is added with a formula, then it is answered, stored and listed whole, names tidied and states upper-cased once', async () => {
      const clinic = await t.createClinic();
      const data = await addEntry(clinic.clinicId, { strength: '2.5 mg/mL', ...FORMULA });
      expect(data).toMatchObject({
        ingredients: [
          { name: 'Semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true },
          { name: 'Benzyl alcohol', strength: '0.9', unit: '%', active: false },
        ],
        preparation: 'non_sterile',
        bud_category: 'aqueous_preserved',
        storage: 'refrigerated',
        controlled_schedule: null,
        beyond_use_days: 30,
        restricted_states: ['AL', 'SC'],
      });
      const list = await t.operator.get(medications(clinic.clinicId));
      expect(list.body.data.medications).toEqual([data]);
      const row = await storedRow(data.medication_id);
      expect(JSON.parse(row.restricted_states ?? 'null')).toEqual(['AL', 'SC']);
    });

    it('when an entry is added without a formula, then every formula field is null, as for entries made before', async () => {
      const clinic = await t.createClinic();
      const data = await addEntry(clinic.clinicId, { strength: '1 mg' });
      expect(data).toMatchObject(NO_FORMULA);
    });

    it('when a sterile entry gives beyond_use_days, then it is kept, whatever the category', async () => {
      const clinic = await t.createClinic();
      const data = await addEntry(clinic.clinicId, {
        ...FORMULA,
        preparation: 'sterile',
        bud_category: 'aqueous_non_preserved',
        storage: 'frozen',
        beyond_use_days: 45,
        controlled_schedule: 'III',
      });
      expect(data).toMatchObject({ preparation: 'sterile', beyond_use_days: 45, controlled_schedule: 'III' });
    });

    const badFormulas: [string, Record<string, unknown>, string][] = [
      [
        'no active ingredient',
        { ingredients: [{ name: 'Benzyl alcohol', strength: '0.9', unit: '%', active: false }] },
        'ingredients',
      ],
      ['no ingredient at all', { ingredients: [] }, 'ingredients'],
      [
        'a sterile preparation asking for more days than its USP <797> condition allows',
        { preparation: 'sterile', beyond_use_days: 30 },
        'beyond_use_days',
      ],
      [
        'a sterile condition on a non-sterile preparation',
        { sterile_condition: { category: 2, preparation: 'aseptic', nonsterile_component: false, sterility_tested: true } },
        'sterile_condition',
      ],
      [
        'a Category 3 preparation that is not sterility tested',
        {
          preparation: 'sterile',
          beyond_use_days: null,
          sterile_condition: { category: 3, preparation: 'aseptic', nonsterile_component: false, sterility_tested: false },
        },
        'sterile_condition.sterility_tested',
      ],
      [
        'a Category 1 preparation stored frozen',
        {
          preparation: 'sterile',
          storage: 'frozen',
          beyond_use_days: null,
          sterile_condition: { category: 1, preparation: 'aseptic', nonsterile_component: false, sterility_tested: false },
        },
        'storage',
      ],
      [
        'an unknown sterile category',
        { preparation: 'sterile', sterile_condition: { category: 4 } },
        'sterile_condition.category',
      ],
      ['an unknown dispense unit', { dispense_unit: 'spoonful' }, 'dispense_unit'],
      ['a therapeutic class not written in lower-case words', { therapeutic_class: 'GLP-1 agonist' }, 'therapeutic_class'],
      [
        'an override longer than the category allows',
        { bud_category: 'aqueous_preserved', beyond_use_days: 36 },
        'beyond_use_days',
      ],
      [
        'a non-preserved aqueous preparation at room temperature',
        { bud_category: 'aqueous_non_preserved', storage: 'room', beyond_use_days: null },
        'storage',
      ],
      ['an unknown state code', { restricted_states: ['AL', 'ZZ'] }, 'restricted_states[1]'],
      ['an unknown preparation', { preparation: 'aseptic' }, 'preparation'],
      ['an unknown schedule', { controlled_schedule: 'I' }, 'controlled_schedule'],
      [
        'a NUL in an ingredient name',
        { ingredients: [{ name: 'Sema\u0000glutide', strength: '1', unit: 'mg', active: true }] },
        'ingredients[0].name',
      ],
      [
        'a bidi control in an ingredient name',
        { ingredients: [{ name: 'Sema\u202Eglutide', strength: '1', unit: 'mg', active: true }] },
        'ingredients[0].name',
      ],
      [
        'an unknown ingredient field',
        { ingredients: [{ name: 'X', strength: '1', unit: 'mg', active: true, lot: '1' }] },
        'ingredients[0].lot',
      ],
      [
        'a part of a formula only',
        { ...Object.fromEntries(Object.keys(FORMULA).map((k) => [k, undefined])), preparation: 'sterile', beyond_use_days: 10 },
        'ingredients',
      ],
    ];

    for (const [what, change, field] of badFormulas) {
      it(`when a formula has ${what}, then 400 names ${field} and nothing is written`, async () => {
        const clinic = await t.createClinic();
        const res = await t.operator.post(medications(clinic.clinicId), { name: newName(), ...FORMULA, ...change });
        expectRefused(res, field);
        const rows = await t.ctx.db.selectFrom('medications').select('id').where('clinic_id', '=', clinic.clinicId).execute();
        expect(rows).toEqual([]);
      });
    }

    it('when there are more ingredients than allowed, then 400 names ingredients', async () => {
      const clinic = await t.createClinic();
      const many = Array.from({ length: 31 }, (_, i) => ({ name: `Part ${i}`, strength: '1', unit: 'mg', active: true }));
      expectRefused(
        await t.operator.post(medications(clinic.clinicId), { name: newName(), ...FORMULA, ingredients: many }),
        'ingredients',
      );
    });
  });

  describe('sterile preparations (USP <797>), units, classes and versions (issue 39)', () => {
    const STERILE = { ...FORMULA, preparation: 'sterile', beyond_use_days: null } as const;
    const CONDITION = { category: 2, preparation: 'aseptic', nonsterile_component: false, sterility_tested: false } as const;

    it('when a sterile entry gives no condition, then it takes the most conservative Category 2 one and its read says so', async () => {
      const clinic = await t.createClinic();
      const data = await addEntry(clinic.clinicId, STERILE);
      expect(data.sterile_condition).toEqual({
        category: 2,
        preparation: 'aseptic',
        nonsterile_component: true,
        sterility_tested: false,
        defaulted: true,
      });
    });

    it('when a sterile entry gives its condition, then it is kept, and days up to the condition\u2019s limit are accepted', async () => {
      const clinic = await t.createClinic();
      const data = await addEntry(clinic.clinicId, { ...STERILE, sterile_condition: CONDITION, beyond_use_days: 10 });
      expect(data).toMatchObject({ sterile_condition: { ...CONDITION, defaulted: false }, beyond_use_days: 10 });
      const refused = await t.operator.post(medications(clinic.clinicId), {
        name: newName(),
        ...STERILE,
        sterile_condition: CONDITION,
        beyond_use_days: 11,
      });
      expectRefused(refused, 'beyond_use_days');
    });

    it('when an entry sets its dispense unit and class, then they are read back, and null clears them', async () => {
      const clinic = await t.createClinic();
      const data = await addEntry(clinic.clinicId, { dispense_unit: 'mL', therapeutic_class: 'glp1_receptor_agonist' });
      expect(data).toMatchObject({
        dispense_unit: 'mL',
        dispense_unit_defaulted: false,
        therapeutic_class: 'glp1_receptor_agonist',
      });
      const cleared = await t.operator.patch(`${medications(clinic.clinicId)}/${data.medication_id}`, {
        dispense_unit: null,
        therapeutic_class: null,
      });
      expect(cleared.body.data).toMatchObject({ dispense_unit: 'each', dispense_unit_defaulted: true, therapeutic_class: null });
    });

    it('when a formula changes, then a new version is kept; a change of anything else keeps the version', async () => {
      const clinic = await t.createClinic();
      const entry = await addEntry(clinic.clinicId, FORMULA);
      const url = `${medications(clinic.clinicId)}/${entry.medication_id}`;
      expect(entry.formula_version).toBe(1);
      expect((await t.operator.patch(url, { name: newName(), dispense_unit: 'mL' })).body.data.formula_version).toBe(1);
      expect((await t.operator.patch(url, { storage: 'room' })).body.data.formula_version).toBe(2);
      expect((await t.operator.patch(url, { storage: 'room' })).body.data.formula_version).toBe(2);
      const versions = await t.operator.get(`${url}/formula-versions`);
      expect(versions.status).toBe(200);
      expect(versions.body.data.versions.map((v: any) => [v.version, v.formula.storage, v.created_by])).toEqual([
        [1, 'refrigerated', 'Operator token'],
        [2, 'room', 'Operator token'],
      ]);
    });

    it('when the versions of an entry of another clinic are asked for, then none are listed', async () => {
      const clinic = await t.createClinic();
      const other = await t.createClinic();
      const entry = await addEntry(clinic.clinicId, FORMULA);
      const res = await t.operator.get(`${medications(other.clinicId)}/${entry.medication_id}/formula-versions`);
      expect(res.body.data.versions).toEqual([]);
    });
  });

  describe('PATCH', () => {
    it('when an entry made without a formula is given one, then only the sent fields change, and the change is audited as update', async () => {
      const clinic = await t.createClinic();
      const entry = await addEntry(clinic.clinicId, { strength: '1 mg', dosage_form: 'capsule' });
      const res = await t.operator.patch(`${medications(clinic.clinicId)}/${entry.medication_id}`, {
        ingredients: [{ name: 'Naltrexone hydrochloride', strength: '4.5', unit: 'mg', active: true }],
        preparation: 'non_sterile',
        bud_category: 'solid',
        storage: 'room',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toEqual({
        ...entry,
        ingredients: [{ name: 'Naltrexone hydrochloride', strength: '4.5', unit: 'mg', active: true }],
        preparation: 'non_sterile',
        bud_category: 'solid',
        storage: 'room',
        restricted_states: [],
        formula_version: 1,
      });
      const audit = (await auditRows(t.ctx)).filter((r) => r.resource_id === entry.medication_id);
      expect(audit.map((r) => [r.action, r.resource_type])).toEqual([
        ['create', 'medication'],
        ['update', 'medication'],
      ]);
    });

    it('when one field of a formula changes, then the rest is kept and the whole is checked again', async () => {
      const clinic = await t.createClinic();
      const entry = await addEntry(clinic.clinicId, FORMULA);
      const url = `${medications(clinic.clinicId)}/${entry.medication_id}`;
      const stored = await t.operator.patch(url, { storage: 'room', strength: null });
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
      expect(stored.body.data).toEqual({ ...entry, storage: 'room', formula_version: 2 });
      // The kept beyond_use_days (30) is longer than the new category allows (14): refused, nothing changes.
      const refused = await t.operator.patch(url, { bud_category: 'aqueous_non_preserved', storage: 'refrigerated' });
      expectRefused(refused, 'beyond_use_days');
      expect((await t.operator.get(medications(clinic.clinicId))).body.data.medications).toEqual([stored.body.data]);
    });

    it('when the name changes to another entry\u2019s, then 409', async () => {
      const clinic = await t.createClinic();
      const first = await addEntry(clinic.clinicId);
      const second = await addEntry(clinic.clinicId);
      const res = await t.operator.patch(`${medications(clinic.clinicId)}/${second.medication_id}`, {
        name: ` ${first.name.toUpperCase()} `,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(409);
    });

    it('when a PATCH is refused, then nothing is written and nothing audited', async () => {
      const clinic = await t.createClinic();
      const entry = await addEntry(clinic.clinicId, FORMULA);
      const before = await storedRow(entry.medication_id);
      const res = await t.operator.patch(`${medications(clinic.clinicId)}/${entry.medication_id}`, {
        name: newName(),
        preparation: 'sterile',
        beyond_use_days: 30,
      });
      expectRefused(res, 'beyond_use_days');
      expect(await storedRow(entry.medication_id)).toEqual(before);
      const audit = (await auditRows(t.ctx)).filter((r) => r.resource_id === entry.medication_id);
      expect(audit.map((r) => r.action)).toEqual(['create']);
    });

    it('when the audit row cannot be written, then the change is not either (one transaction)', async () => {
      const clinic = await t.createClinic();
      const entry = await addEntry(clinic.clinicId, FORMULA);
      const before = await storedRow(entry.medication_id);
      const restore = await refuseAuditRows(t.ctx, `new.resource_id = '${entry.medication_id}' and new.action = 'update'`);
      try {
        const res = await t.operator.patch(`${medications(clinic.clinicId)}/${entry.medication_id}`, {
          name: newName(),
          storage: 'room',
        });
        expect(res.status).toBe(500);
      } finally {
        await restore();
      }
      expect(await storedRow(entry.medication_id)).toEqual(before);
    });

    it('when the entry, or the clinic, is unknown, or the body is empty, then 404, 404 and 400', async () => {
      const clinic = await t.createClinic();
      const entry = await addEntry(clinic.clinicId);
      const other = await t.createClinic();
      expect((await t.operator.patch(`${medications(other.clinicId)}/${entry.medication_id}`, { storage: 'room' })).status).toBe(
        404,
      );
      expect(
        (
          await t.operator.patch(`${medications('00000000-0000-4000-8000-000000000000')}/${entry.medication_id}`, {
            storage: 'room',
          })
        ).status,
      ).toBe(404);
      expect((await t.operator.patch(`${medications(clinic.clinicId)}/${entry.medication_id}`, {})).status).toBe(400);
    });

    it('when a pharmacist changes an entry from the console, then it is allowed', async () => {
      const clinic = await t.createClinic();
      const entry = await addEntry(clinic.clinicId);
      const email = `pharmacist${++names}@pharmacy.example`;
      const created = await t.operator.post('/api/admin/staff', {
        email,
        name: 'Pat Pharmacist',
        role: 'pharmacist',
        password: PASSWORD,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const signedIn = await t.request('POST', '/api/admin/session', {
        headers: { host: HOST, origin: OWN_ORIGIN, 'content-type': 'application/json' },
        body: { email, password: PASSWORD },
      });
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
      const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
      const res = await t.request('PATCH', `${medications(clinic.clinicId)}/${entry.medication_id}`, {
        headers: { host: HOST, cookie, origin: OWN_ORIGIN, accept: 'application/json', 'content-type': 'application/json' },
        body: FORMULA,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.bud_category).toBe('aqueous_preserved');
    });
  });

  describe('the partner\u2019s formulary', () => {
    it('when a partner lists its formulary, then each entry shows its formula, and null fields for an entry with none', async () => {
      const clinic = await t.createClinic({ formulary: ['Old entry'] });
      const withFormula = await addEntry(clinic.clinicId, FORMULA);
      const res = await t.partner(clinic.apiKey).get('/api/external/medications');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const items = res.body.data.items;
      expect(items.find((m: any) => m.medication_id === withFormula.medication_id)).toEqual(withFormula);
      expect(items.find((m: any) => m.name === 'Old entry')).toMatchObject(NO_FORMULA);
    });
  });
});
