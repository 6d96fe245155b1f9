import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../audit/support.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { allPages, expectFieldRefused } from '../helpers/pages.js';

describe.each(DIALECTS)('GET /api/external/medications on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when a partner lists its formulary, then it sees its own medications only, newest first, and no audit row', async () => {
    const clinic = await t.createClinic({ formulary: ['Semaglutide', 'Tirzepatide'] });
    await t.createClinic({ formulary: ['Gabapentin'] });
    const res = await t.partner(clinic.apiKey).get('/api/external/medications');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Formulary retrieved successfully');
    expect(res.body.data.next_cursor).toBeNull();
    expect(res.body.data.items.map((m: any) => m.name).sort()).toEqual(['Semaglutide', 'Tirzepatide']);
    expect(res.body.data.items[0]).toEqual({
      medication_id: expect.any(String),
      clinic_id: clinic.clinicId,
      name: expect.any(String),
      strength: null,
      dosage_form: null,
      created_at: expect.any(String),
      // An entry with no formula (issue 30): every formula field null.
      ingredients: null,
      preparation: null,
      bud_category: null,
      storage: null,
      controlled_schedule: null,
      beyond_use_days: null,
      restricted_states: null,
      sterile_condition: null,
      // Issue 39: an entry that sets no dispense unit counts `each`, and says so.
      dispense_unit: 'each',
      dispense_unit_defaulted: true,
      therapeutic_class: null,
      formula_version: null,
    });
    const created = res.body.data.items.map((m: any) => m.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect((await auditRows(t.ctx)).filter((r) => r.clinic_id === clinic.clinicId)).toEqual([]);
  });

  it('when the formulary is longer than `limit`, then the pages hold every medication once', async () => {
    const names = ['A1', 'B2', 'C3', 'D4', 'E5'].map((n) => `Medication ${n}`);
    const clinic = await t.createClinic({ formulary: names });
    const pages = await allPages(t, clinic, '/api/external/medications?limit=2');
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(
      pages
        .flat()
        .map((m) => m.name)
        .sort(),
    ).toEqual(names);
  });

  it('when limit or cursor is invalid, then 400 names the field', async () => {
    const clinic = await t.createClinic();
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=nonsense', 'cursor'],
      ['color=red', 'color'],
    ] as const) {
      await expectFieldRefused(t, clinic, `/api/external/medications?${query}`, field);
    }
  });

  it('when the API key is missing, then 401', async () => {
    const res = await t.request('GET', '/api/external/medications', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(401);
  });
});
