import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceOrder, createOrder, createOrderSetup, itemBody, type OrderSetup } from '../helpers/factories.js';
import { auditRows } from '../audit/support.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('operator order list on %s', (dialect) => {
  let t: TestApp;
  let a: OrderSetup;
  let b: OrderSetup;
  /** Creation order, oldest first: a0 a1 b0 a2 b1 a3. */
  const created: { id: string; clinic: 'a' | 'b' }[] = [];
  // A clock that moves 1 s per reading gives every order its own created_at except where forced.
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  let frozen = false;
  const clock = () => new Date(frozen ? now : (now += 1000));

  const list = async (query: string) => {
    const res = await t.operator.get(`/api/admin/medication-requests${query}`);
    expect(res.status).toBe(200);
    return res.body.data as {
      items: { medication_request_id: string; status: string; clinic_id: string; item_count: number; patient_id: string }[];
      next_cursor: string | null;
    };
  };

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock });
    a = await createOrderSetup(t, {
      clinicName: 'Northside Veterinary',
      patient: { first_name: 'Ada', middle_name: 'King', last_name: 'Lovelace' },
    });
    b = await createOrderSetup(t, { clinicName: 'Harbor Compounding' });
    for (const clinic of ['a', 'a', 'b', 'a', 'b', 'a'] as const) {
      created.push({ id: await createOrder(t, clinic === 'a' ? a : b), clinic });
    }
    await advanceOrder(t, a.clinic, created[0]!.id, 'shipped');
    // Two orders created in the same millisecond: the cursor must still separate them.
    frozen = true;
    created.push({ id: await createOrder(t, b), clinic: 'b' });
    created.push({
      id: await createOrder(t, b, { medication_requests: [itemBody(), itemBody({ medication: 'Tirzepatide' })] }),
      clinic: 'b',
    });
    frozen = false;
  });
  afterAll(async () => t.close());

  /** Newest first, ties broken by id descending, as the API promises. */
  const expectedOrder = async (filter: (row: { clinic_id: string; status: string }) => boolean) => {
    const rows = await t.ctx.db.selectFrom('medication_requests').selectAll().execute();
    return rows
      .filter(filter)
      .sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1))
      .map((r) => r.id);
  };

  it('when the operator pages through every order two at a time sorted newest first, then each appears once, newest first', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(`?sort=newest&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((i) => i.medication_request_id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 20);
    expect(seen).toEqual(await expectedOrder(() => true));
    expect(seen).toHaveLength(created.length);
  });

  it('when filtered by clinic, then only that clinic\u2019s orders are listed', async () => {
    const page = await list(`?sort=newest&clinic_id=${b.clinic.clinicId}`);
    expect(page.items.map((i) => i.medication_request_id)).toEqual(await expectedOrder((r) => r.clinic_id === b.clinic.clinicId));
    expect(page.next_cursor).toBeNull();
  });

  it('when filtered by status, then only orders in that status are listed', async () => {
    const page = await list('?status=shipped');
    expect(page.items.map((i) => i.medication_request_id)).toEqual([created[0]!.id]);
    expect(page.items[0]).toMatchObject({ status: 'shipped', item_count: 1 });
    const both = await list(`?status=pending&clinic_id=${a.clinic.clinicId}`);
    expect(both.items).toHaveLength(3);
  });

  it('when the queue is listed, then each row names its clinic, its patient, its carrier and service, and counts its items', async () => {
    const page = await list(`?sort=newest&clinic_id=${a.clinic.clinicId}&limit=1`);
    expect(page.items[0]).toEqual({
      medication_request_id: created[5]!.id,
      clinic_id: a.clinic.clinicId,
      clinic_name: 'Northside Veterinary',
      patient_id: a.patientId,
      patient_name: 'Ada King Lovelace',
      patient_dob: '1980-12-09',
      practitioner_id: a.practitionerId,
      practitioner_name: 'Ada Lovelace',
      practitioner_npi: '1234567893',
      practitioner_is_veterinarian: false,
      status: 'pending',
      item_count: 1,
      medications: [{ medication: 'Semaglutide', dose: '0.25mg', unit_of_measure: 'each', quantity: 1 }],
      age_business_hours: expect.any(Number),
      carrier_id: 'fedex',
      carrier_name: 'FedEx',
      is_refrigerated: false,
      service_id: 'fedex_ground',
      service_name: 'FedEx Ground®',
      total_cost: 32.44,
      tracking_number: null,
      refill_of: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      hold: null,
    });
    const twoItems = await list(`?medication_request_id=${created[7]!.id}`);
    expect(twoItems.items[0]).toMatchObject({ clinic_name: 'Harbor Compounding', patient_name: 'Grace Hopper', item_count: 2 });
  });

  it('when the queue is searched by order id, then that order alone is listed, unless another filter excludes it', async () => {
    const id = created[3]!.id;
    expect((await list(`?medication_request_id=${id}`)).items.map((i) => i.medication_request_id)).toEqual([id]);
    expect((await list(`?medication_request_id=${id}&status=pending&clinic_id=${a.clinic.clinicId}`)).items).toHaveLength(1);
    expect(await list(`?medication_request_id=${id}&clinic_id=${b.clinic.clinicId}`)).toEqual({ items: [], next_cursor: null });
    expect((await list(`?medication_request_id=${created[0]!.id}&status=pending`)).items).toEqual([]);
  });

  it('when the order id searched is not a UUID, then 400 names medication_request_id', async () => {
    const res = await t.operator.get('/api/admin/medication-requests?medication_request_id=3f2a9c1e');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['medication_request_id']);
  });

  it('when the queue is listed, then every order and every patient shown is recorded as read, each patient once', async () => {
    const res = await t.operator.get(`/api/admin/medication-requests?clinic_id=${a.clinic.clinicId}`);
    expect(res.status).toBe(200);
    const rows = (await auditRows(t.ctx)).filter((row) => row.request_id === res.headers['x-request-id']);
    const orderIds = created.filter((o) => o.clinic === 'a').map((o) => o.id);
    expect(rows.map((row) => [row.action, row.resource_type, row.resource_id, row.clinic_id]).sort()).toEqual(
      [
        ...orderIds.map((id) => ['read', 'medication_request', id, a.clinic.clinicId]),
        ['read', 'patient', a.patientId, a.clinic.clinicId],
      ].sort(),
    );
  });

  it('when the cursor is not one the API returned, then 400 names cursor', async () => {
    const res = await t.operator.get('/api/admin/medication-requests?cursor=garbage');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      cursor: 'is not a cursor this API returned (pass next_cursor from the previous page)',
    });
  });

  it('when the status filter is unknown or the limit out of range, then 400', async () => {
    expect((await t.operator.get('/api/admin/medication-requests?status=lost')).status).toBe(400);
    expect((await t.operator.get('/api/admin/medication-requests?limit=0')).status).toBe(400);
    expect((await t.operator.get('/api/admin/medication-requests?limit=101')).status).toBe(400);
  });

  it('when the operator reads one order of any clinic, then it is returned in full', async () => {
    const res = await t.operator.get(`/api/admin/medication-requests/${created[2]!.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ medication_request_id: created[2]!.id, clinic_id: b.clinic.clinicId });
    expect(res.body.data.medication_requests).toHaveLength(1);
  });

  it('when the operator token is missing, then 401', async () => {
    const res = await t.request('GET', '/api/admin/medication-requests');
    expect(res.status).toBe(401);
  });
});
