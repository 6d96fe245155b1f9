import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../audit/support.js';
import { createOrder, createOrderSetup, expectOk, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * The console's Holds view (issue 29, "The people who work it"): GET /api/admin/holds lists every
 * order on hold, oldest hold first, by whom it waits on and by reason, with its age in working hours
 * since the hold began. The pharmacy works in New York; every time below is its wall clock (January:
 * UTC-5). 2030-01-07 is a Monday.
 */
const ny = (wall: string) => Date.parse(`${wall}-05:00`);
const iso = (wall: string) => new Date(ny(wall)).toISOString();

describe.each(DIALECTS)('GET /api/admin/holds on %s', (dialect) => {
  let t: TestApp;
  let now = ny('2030-01-07T09:00:00');
  const clock = () => new Date(now);
  let north: OrderSetup;
  let harbor: OrderSetup;
  /** Grace Hopper's, held Monday 10:00 for a prescription's clarification (waits on the partner). */
  let o1 = '';
  /** Rex Barker's, processing, held Monday 11:00: out of stock (waits on the pharmacy). */
  let o2 = '';
  /** Grace Hopper's, held Monday 13:00 (patient unreachable), answered by the partner Tuesday 10:00. */
  let o3 = '';
  /** Grace Hopper's, held Monday 14:00 and resumed at 15:00: no longer on hold. */
  let o4 = '';
  /** Grace Hopper's, pending, never held. */
  let o5 = '';
  /** Rex Barker's, held Tuesday 12:00 for `other`, waiting on the partner. */
  let o6 = '';

  const at = async <T>(wall: string, action: () => Promise<T>): Promise<T> => {
    now = ny(wall);
    return action();
  };
  const hold = async (orderId: string, body: Record<string, string>) =>
    expectOk(await t.operator.post(`/api/admin/medication-requests/${orderId}/hold`, body), `hold ${body.reason_code ?? ''}`);
  const list = async (query = '') => {
    const res = await t.operator.get(`/api/admin/holds${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { items: Record<string, any>[]; next_cursor: string | null };
  };
  const ids = async (query = '') => (await list(query)).items.map((item) => item.medication_request_id as string);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock, env: { PHARMACY_TIME_ZONE: 'America/New_York' } });
    north = await createOrderSetup(t, { clinicName: 'Northside Pharmacy Partners' });
    harbor = await createOrderSetup(t, {
      clinicName: 'Harbor Veterinary',
      veterinary: true,
      patient: { first_name: 'Rex', last_name: 'Barker' },
    });
    o1 = await at('2030-01-07T09:30:00', () => createOrder(t, north));
    await at('2030-01-07T10:00:00', () =>
      hold(o1, { reason_code: 'prescription_clarification', message: 'Please confirm the dose.' }),
    );
    o2 = await at('2030-01-07T10:30:00', () => createOrder(t, harbor));
    await at('2030-01-07T10:45:00', async () =>
      expectOk(await t.operator.post(`/api/admin/medication-requests/${o2}/status`, { status: 'processing' }), 'process'),
    );
    await at('2030-01-07T11:00:00', () => hold(o2, { reason_code: 'out_of_stock', message: 'Back in stock Thursday.' }));
    o3 = await at('2030-01-07T12:00:00', () => createOrder(t, north));
    await at('2030-01-07T13:00:00', () =>
      hold(o3, { reason_code: 'patient_unreachable', message: 'No answer at the number given.' }),
    );
    await at('2030-01-08T10:00:00', async () =>
      expectOk(
        await t.partner(north.clinic.apiKey).post(`/api/external/medication-order/${o3}/hold-response`, {
          message: 'The patient will call you today.',
        }),
        'answer',
      ),
    );
    o4 = await at('2030-01-07T13:30:00', () => createOrder(t, north));
    await at('2030-01-07T14:00:00', () => hold(o4, { reason_code: 'prescriber_outreach', message: 'Calling the prescriber.' }));
    await at('2030-01-07T15:00:00', async () =>
      expectOk(await t.operator.post(`/api/admin/medication-requests/${o4}/resume`, {}), 'resume'),
    );
    o5 = await at('2030-01-07T15:30:00', () => createOrder(t, north));
    o6 = await at('2030-01-08T09:00:00', () => createOrder(t, harbor));
    await at('2030-01-08T12:00:00', () =>
      hold(o6, { reason_code: 'other', waiting_on: 'partner', message: 'Please send the vet\u2019s licence number.' }),
    );
    now = ny('2030-01-09T12:00:00');
  });
  afterAll(async () => t.close());

  it('when the holds are listed, then every order on hold comes, oldest hold first, and no other', async () => {
    const listed = await ids();
    expect(listed).toEqual([o1, o2, o3, o6]);
    expect(listed).not.toContain(o4);
    expect(listed).not.toContain(o5);
  });

  it('when an answered hold is listed, then it names the clinic, the patient, the hold, the answer and its age', async () => {
    const item = (await list()).items.find((row) => row.medication_request_id === o3);
    expect(item).toEqual({
      medication_request_id: o3,
      clinic_id: north.clinic.clinicId,
      clinic_name: 'Northside Pharmacy Partners',
      patient: { patient_id: north.patientId, first_name: 'Grace', last_name: 'Hopper' },
      held_from: 'pending',
      hold: {
        reason_code: 'patient_unreachable',
        reason: expect.any(String),
        message: 'No answer at the number given.',
        waiting_on: 'pharmacy',
        since: iso('2030-01-07T13:00:00'),
      },
      answered_at: iso('2030-01-08T10:00:00'),
      age_business_hours: 15,
      created_at: iso('2030-01-07T12:00:00'),
    });
    const reasons = (await t.operator.get('/api/admin/hold-reasons')).body.data as { code: string; reason: string }[];
    expect(item?.hold.reason).toBe(reasons.find((reason) => reason.code === 'patient_unreachable')?.reason);
  });

  it('when a processing order is held, then the view says it resumes to processing', async () => {
    const [item] = (await list('?reason_code=out_of_stock')).items;
    expect(item).toMatchObject({ medication_request_id: o2, held_from: 'processing', answered_at: null });
    expect(item?.hold).toMatchObject({ waiting_on: 'pharmacy', message: 'Back in stock Thursday.' });
  });

  it('when the holds are filtered by whom they wait on, then each group has its own, oldest first', async () => {
    expect(await ids('?waiting_on=partner')).toEqual([o1, o6]);
    // o3 waited on the partner until the partner answered.
    expect(await ids('?waiting_on=pharmacy')).toEqual([o2, o3]);
  });

  it('when the holds are filtered by reason, then only that reason\u2019s are listed, with the other filter too', async () => {
    expect(await ids('?reason_code=other')).toEqual([o6]);
    expect(await ids('?reason_code=out_of_stock&waiting_on=partner')).toEqual([]);
    expect(await ids('?reason_code=allergy_conflict')).toEqual([]);
  });

  it('when the holds are listed, then each age counts the working hours since its hold began, from the clock', async () => {
    const ages = Object.fromEntries((await list()).items.map((item) => [item.medication_request_id, item.age_business_hours]));
    // o1: Monday 10-17 (7), Tuesday (8), Wednesday 9-12 (3). o2: 6 + 8 + 3. o3: 4 + 8 + 3. o6: Tuesday 12-17, Wednesday 9-12.
    expect(ages).toEqual({ [o1]: 18, [o2]: 17, [o3]: 15, [o6]: 8 });
    now = ny('2030-01-09T12:30:00');
    expect((await list('?reason_code=other')).items[0]).toMatchObject({ age_business_hours: 8.5 });
    now = ny('2030-01-09T12:00:00');
  });

  it('when the holds are paged one at a time, then every hold appears once, in the same order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(`?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.items.map((item) => item.medication_request_id as string));
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual([o1, o2, o3, o6]);
  });

  it.each([
    ['reason_code=not_a_reason', 'reason_code'],
    ['waiting_on=clinic', 'waiting_on'],
    ['cursor=bm90IGEgY3Vyc29y', 'cursor'],
    ['limit=0', 'limit'],
  ])('when the query has %s, then 400 names %s', async (query, field) => {
    const res = await t.operator.get(`/api/admin/holds?${query}`);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual([field]);
  });

  it('when the holds are listed, then the trail records a read of each order and of each patient named, once', async () => {
    const res = await t.operator.get('/api/admin/holds');
    expect(res.status).toBe(200);
    const rows = (await auditRows(t.ctx)).filter((row) => row.request_id === res.headers['x-request-id']);
    const north_ = north.clinic.clinicId;
    const harbor_ = harbor.clinic.clinicId;
    expect(rows.map((row) => [row.actor_type, row.action, row.resource_type, row.resource_id, row.clinic_id]).sort()).toEqual(
      [
        ['operator', 'read', 'medication_request', o1, north_],
        ['operator', 'read', 'medication_request', o2, harbor_],
        ['operator', 'read', 'medication_request', o3, north_],
        ['operator', 'read', 'medication_request', o6, harbor_],
        ['operator', 'read', 'patient', north.patientId, north_],
        ['operator', 'read', 'patient', harbor.patientId, harbor_],
      ].sort(),
    );
  });

  it('when the catalog is read by the operator, then it is the partner API\u2019s, code for code', async () => {
    const operator = await t.operator.get('/api/admin/hold-reasons');
    const partner = await t.partner(north.clinic.apiKey).get('/api/external/hold-reasons');
    expect(operator.status).toBe(200);
    expect(operator.body.data).toEqual(partner.body.data);
    expect(operator.body.data.map((reason: { code: string }) => reason.code)).toContain('prescription_clarification');
  });

  it('when a shipped order is held for a delivery exception, then the view says it resumes to shipped', async () => {
    const shipped = await createOrder(t, harbor);
    const move = (body: Record<string, string>) => t.operator.post(`/api/admin/medication-requests/${shipped}/status`, body);
    expectOk(await move({ status: 'processing' }), 'process');
    expectOk(await move({ status: 'shipped', tracking_number: '794612345678' }), 'ship');
    const order = expectOk(await t.operator.get(`/api/admin/medication-requests/${shipped}`), 'read');
    const shipmentId = order.shipments[0].shipment_id as string;
    expectOk(
      await t.operator.post(`/api/admin/medication-requests/${shipped}/shipments/${shipmentId}/events`, {
        status: 'exception',
        occurred_at: new Date(now).toISOString(),
      }),
      'exception',
    );
    const [item] = (await list('?reason_code=delivery_exception')).items;
    expect(item).toMatchObject({ medication_request_id: shipped, held_from: 'shipped' });
    expect(item?.hold).toMatchObject({ reason_code: 'delivery_exception', waiting_on: 'partner' });
  });

  it('when a partner key calls the holds, then it is refused', async () => {
    expect((await t.partner(north.clinic.apiKey).get('/api/admin/holds')).status).toBe(401);
  });
});
