import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyDatabaseTally, probeDatabases } from '../helpers/database-probe.js';
import { createOrder, createOrderSetup, createPatient, expectOk, itemBody, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * The pharmacist's work queue (issue 21, item 1): search, filters, the waiting orders oldest first,
 * the age in working hours. The pharmacy works in New York; every time below is its wall clock
 * (January: UTC-5). 2030-01-07 is a Monday.
 */
const ny = (wall: string) => Date.parse(`${wall}-05:00`);
const TRACKING = '1Z999AA10123456784';

describe.each(DIALECTS)('the operator\u2019s work queue on %s', (dialect) => {
  let t: TestApp;
  let now = ny('2030-01-07T09:00:00');
  const clock = () => new Date(now);
  let north: OrderSetup;
  let harbor: OrderSetup;
  let elodie: string;
  /** Grace Hopper's, shipped Monday 14:00. */
  let o1 = '';
  /** Harbor's dog, waiting since Monday 11:00 (UPS). */
  let o2 = '';
  /** Élodie's, waiting since Friday 16:00. */
  let o3 = '';
  /** Harbor's dog, created Monday 21:00 (Tuesday in UTC), cancelled Tuesday 10:00. */
  let o4 = '';
  /** Grace Hopper's, processing since Tuesday 12:00. */
  let o5 = '';

  const at = async <T>(wall: string, action: () => Promise<T>): Promise<T> => {
    now = ny(wall);
    return action();
  };
  const move = async (orderId: string, body: Record<string, string>) =>
    expectOk(await t.operator.post(`/api/admin/medication-requests/${orderId}/status`, body), `order to ${body.status ?? ''}`);
  const list = async (query: string) => {
    const res = await t.operator.get(`/api/admin/medication-requests${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { items: Record<string, any>[]; next_cursor: string | null };
  };
  const ids = async (query: string) => (await list(query)).items.map((item) => item.medication_request_id as string);
  const search = (q: string) => ids(`?q=${encodeURIComponent(q)}`);

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock, env: { PHARMACY_TIME_ZONE: 'America/New_York' } });
    north = await createOrderSetup(t, { clinicName: 'Northside Pharmacy Partners' });
    harbor = await createOrderSetup(t, {
      clinicName: 'Harbor Veterinary',
      veterinary: true,
      patient: { first_name: 'Rex', last_name: 'Barker' },
    });
    elodie = await createPatient(t, north.clinic, {
      practitionerId: north.practitionerId,
      overrides: { first_name: 'Élodie', last_name: 'Dubois' },
    });
    // UPS: its tracking number must have UPS's format (1Z and 16 characters).
    o1 = await at('2030-01-07T10:00:00', () => createOrder(t, north, { carrier_id: 'ups', service_id: 'ups_ground' }));
    o2 = await at('2030-01-07T11:00:00', () => createOrder(t, harbor, { carrier_id: 'ups', service_id: 'ups_ground' }));
    await at('2030-01-07T12:00:00', () => move(o1, { status: 'processing' }));
    await at('2030-01-07T14:00:00', () => move(o1, { status: 'shipped', tracking_number: TRACKING }));
    o4 = await at('2030-01-07T21:00:00', () => createOrder(t, harbor));
    await at('2030-01-08T10:00:00', () => move(o4, { status: 'cancelled' }));
    o5 = await at('2030-01-08T12:00:00', () =>
      createOrder(t, north, { medication_requests: [itemBody(), itemBody({ medication: 'Tirzepatide', dose: '2.5mg' })] }),
    );
    await at('2030-01-08T13:00:00', () => move(o5, { status: 'processing' }));
    o3 = await at('2030-01-11T16:00:00', () => createOrder(t, { ...north, patientId: elodie }));
    now = ny('2030-01-14T12:00:00');
  });
  afterAll(async () => t.close());

  it('when the queue is listed without a sort, then the waiting orders come oldest first, then the others newest first', async () => {
    expect(await ids('')).toEqual([o2, o5, o3, o4, o1]);
  });

  it('when the queue is paged one order at a time, then every order appears once, in the same order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(`?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.items.map((item) => item.medication_request_id as string));
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual([o2, o5, o3, o4, o1]);
  });

  it('when the queue is sorted newest first, then every order is, whatever its status', async () => {
    expect(await ids('?sort=newest')).toEqual([o3, o5, o4, o2, o1]);
  });

  it('when a cursor of one sort is passed with the other, then 400 names cursor', async () => {
    const newest = (await list('?sort=newest&limit=1')).next_cursor ?? '';
    const waiting = (await list('?limit=1')).next_cursor ?? '';
    for (const query of [`?cursor=${encodeURIComponent(newest)}`, `?sort=newest&cursor=${encodeURIComponent(waiting)}`]) {
      const res = await t.operator.get(`/api/admin/medication-requests${query}`);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(['cursor']);
    }
  });

  it('when the queue is listed, then each row has the age of its order in working hours, counted from the clock', async () => {
    const ages = Object.fromEntries((await list('')).items.map((item) => [item.medication_request_id, item.age_business_hours]));
    // o2: Monday 11-17 (6), Tuesday to Friday (32), Monday 9-12 (3). o5: 5 + 24 + 3. o3: Friday 16-17, Monday 9-12.
    // o4: Monday 21:00 to its cancellation on Tuesday 10:00. o1: Monday 10:00 to its shipping at 14:00.
    expect(ages).toEqual({ [o2]: 41, [o5]: 32, [o3]: 4, [o4]: 1, [o1]: 4 });
    now = ny('2030-01-14T12:30:00');
    const later = await list(`?medication_request_id=${o3}`);
    expect(later.items[0]).toMatchObject({ age_business_hours: 4.5 });
    now = ny('2030-01-14T12:00:00');
  });

  it('when a row is listed, then it names the prescriber, the patient\u2019s date of birth and the medications', async () => {
    const [row] = (await list(`?medication_request_id=${o5}`)).items;
    expect(row).toMatchObject({
      patient_name: 'Grace Hopper',
      patient_dob: '1980-12-09',
      practitioner_name: 'Ada Lovelace',
      practitioner_npi: '1234567893',
      practitioner_is_veterinarian: false,
      item_count: 2,
      medications: [
        { medication: 'Semaglutide', dose: '0.25mg', quantity: 1 },
        { medication: 'Tirzepatide', dose: '2.5mg', quantity: 1 },
      ],
    });
    const [dog] = (await list(`?medication_request_id=${o2}`)).items;
    expect(dog).toMatchObject({
      patient_name: 'Rex Barker',
      practitioner_name: 'James Herriot',
      practitioner_is_veterinarian: true,
    });
  });

  it('when searched by a patient\u2019s name, in any case and in any order of its words, then that patient\u2019s orders are listed', async () => {
    expect(await search('hopper')).toEqual([o5, o1]);
    expect(await search('GRACE hop')).toEqual([o5, o1]);
    expect(await search('Hopper Grace')).toEqual([o5, o1]);
    expect(await search('barker')).toEqual([o2, o4]);
    expect(await search('hopper barker')).toEqual([]);
  });

  it('when searched by 8 characters of an order id, in either case, then that order is listed, never a validation error', async () => {
    // The last characters of a UUIDv7 are random: they name one order.
    expect(await search(o3.slice(-8))).toEqual([o3]);
    expect(await search(o3.slice(-8).toUpperCase())).toEqual([o3]);
    expect(await search(o3.slice(20, 28))).toEqual([o3]);
    expect(await search(o3)).toEqual([o3]);
    // Its first 8 are its creation time (to about a minute): the orders of that minute, o3 among them.
    const sameMinute = [o1, o2, o3, o4, o5].filter((id) => id.startsWith(o3.slice(0, 8)));
    expect((await search(o3.slice(0, 8))).sort()).toEqual(sameMinute.sort());
  });

  it('when searched by a prescriber\u2019s name, then the orders they prescribed are listed', async () => {
    expect(await search('herriot')).toEqual([o2, o4]);
    expect(await search('lovelace')).toEqual([o5, o3, o1]);
  });

  it('when searched by part of a tracking number, then the order shipped with it is listed', async () => {
    expect(await search('AA1012345')).toEqual([o1]);
    expect(await search(TRACKING.toLowerCase())).toEqual([o1]);
  });

  it('when the search holds LIKE wildcards, then they match themselves only', async () => {
    expect(await search('%')).toEqual([]);
    expect(await search('_')).toEqual([]);
    expect(await search('\\')).toEqual([]);
    expect(await search('h%r')).toEqual([]);
  });

  it('when searched for a name with an accented letter, then it matches as written and A-Z in either case, on both databases alike', async () => {
    expect(await search('Élodie')).toEqual([o3]);
    expect(await search('LODIE')).toEqual([o3]);
    expect(await search('élodie')).toEqual([]);
    // Sent decomposed (E + U+0301): normalized to the stored form first.
    expect(await search('E\u0301lodie')).toEqual([o3]);
  });

  it('when the search is combined with filters, then both apply', async () => {
    expect(await ids(`?q=hopper&status=shipped`)).toEqual([o1]);
    expect(await ids(`?q=lovelace&clinic_id=${harbor.clinic.clinicId}`)).toEqual([]);
  });

  it('when filtered by carrier, then only orders shipping with it are listed', async () => {
    expect(await ids('?carrier_id=ups')).toEqual([o2, o1]);
    expect(await ids('?carrier_id=fedex&sort=newest')).toEqual([o3, o5, o4]);
    expect(await ids('?carrier_id=dhl')).toEqual([]);
  });

  it('when filtered by days of creation, then the days are the pharmacy\u2019s, both ends included', async () => {
    // o4 was created on Monday evening in New York, Tuesday in UTC.
    expect(await ids('?created_from=2030-01-08&created_to=2030-01-08')).toEqual([o5]);
    expect(await ids('?created_to=2030-01-07&sort=newest')).toEqual([o4, o2, o1]);
    expect(await ids('?created_from=2030-01-09')).toEqual([o3]);
  });

  it('when a day filter is not a day, or the range ends before it starts, then 400 names the field', async () => {
    const cases: [string, string][] = [
      ['?created_from=2030-02-30', 'created_from'],
      ['?created_from=yesterday', 'created_from'],
      ['?created_to=2030-1-8', 'created_to'],
      ['?created_from=2030-01-09&created_to=2030-01-08', 'created_to'],
    ];
    for (const [query, field] of cases) {
      const res = await t.operator.get(`/api/admin/medication-requests${query}`);
      expect(res.status, query).toBe(400);
      expect(Object.keys(res.body.error.details), query).toEqual([field]);
    }
  });

  it('when the search is longer than 100 characters or holds more than 6 words, then 400 names q', async () => {
    for (const q of ['a'.repeat(101), 'a b c d e f g']) {
      const res = await t.operator.get(`/api/admin/medication-requests?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(['q']);
    }
    expect(await search('a'.repeat(100))).toEqual([]);
  });

  it('when the sort or the carrier is not one the API knows, then 400 names it', async () => {
    for (const [query, field] of [
      ['?sort=oldest', 'sort'],
      [`?carrier_id=${'x'.repeat(101)}`, 'carrier_id'],
    ] as const) {
      const res = await t.operator.get(`/api/admin/medication-requests${query}`);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual([field]);
    }
  });

  it('when a page of the queue is listed, then its selects are as many for five orders as for one (no query per order)', async () => {
    const selects = async (query: string) => {
      const tally = emptyDatabaseTally();
      const stop = probeDatabases(tally);
      try {
        await list(query);
      } finally {
        stop();
      }
      return [...tally.sql].filter(([text]) => /^select\b/i.test(text)).reduce((sum, [, count]) => sum + count, 0);
    };
    const one = await selects('?sort=newest&limit=1');
    expect(await selects('?sort=newest&limit=5')).toBe(one);
    expect(one).toBe(2);
  });
});
