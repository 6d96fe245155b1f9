import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const NOW = new Date('2025-06-15T12:00:00.000Z');
/** New rows get time-ordered ids: UUIDv7 (RFC 9562). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const URL_ = '/api/external/patient';
const UNKNOWN_ID = '0b5e7c9a-1d2f-4e3a-8b4c-5d6e7f809a1b';

describe.each(DIALECTS)('POST /api/external/patient on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;
  let practitionerId: string;
  let foreignPractitionerId: string;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: () => NOW });
    clinic = await t.createClinic();
    other = await t.createClinic({ name: 'Other Clinic' });
    practitionerId = (await t.partner(clinic.apiKey).post('/api/external/practitioner', practitionerBody(clinic.clinicId))).body
      .data.practitioner_id;
    foreignPractitionerId = (await t.partner(other.apiKey).post('/api/external/practitioner', practitionerBody(other.clinicId)))
      .body.data.practitioner_id;
  });
  afterAll(async () => t.close());

  const stored = (id: string) => t.ctx.db.selectFrom('patients').selectAll().where('id', '=', id).executeTakeFirst();
  const count = async () =>
    (
      await t.ctx.db
        .selectFrom('patients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  const post = (body: unknown, key = clinic.apiKey) => t.partner(key).post(URL_, body);

  it('when a complete patient is posted, then 200 with the spec envelope and every field is stored', async () => {
    const res = await post(patientBody(clinic.clinicId, { middle_name: 'Brewster', practitioner_id: practitionerId }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { patient_id: expect.stringMatching(UUID) },
      message: 'Patient created successfully',
    });
    expect(Object.keys(res.body.data)).toEqual(['patient_id']);
    const row = await stored(res.body.data.patient_id);
    expect(row).toEqual({
      id: res.body.data.patient_id,
      clinic_id: clinic.clinicId,
      practitioner_id: practitionerId,
      first_name: 'Grace',
      middle_name: 'Brewster',
      last_name: 'Hopper',
      gender: 'female',
      dob: '1980-12-09',
      species: 'human',
      status: 'active',
      contacts: expect.any(String),
      address_line_1: '2 Elm St',
      address_line_2: 'Apt 3',
      city: 'Sacramento',
      state: 'CA',
      postal_code: '95814',
      created_at: NOW.toISOString(),
      allergies: null,
      no_known_allergies: null,
    });
    expect(JSON.parse(row?.contacts ?? '')).toEqual([
      { key: 'email', value: 'grace@example.com' },
      { key: 'phone', value: '555-555-0101' },
    ]);
  });

  it('when only the required fields are posted, then species defaults to human, status to active and the rest is empty', async () => {
    const res = await post({
      first_name: ' Rex ',
      last_name: 'Doe',
      gender: 'unknown',
      dob: '2020-05-01',
      assigned_clinic: clinic.clinicId,
      addresses: [{ addressLine1: '5 Pine Rd', addressLine2: '', city: 'Juneau', state: 'ak', postalCode: '99801-0001' }],
    });
    expect(res.status).toBe(200);
    expect(await stored(res.body.data.patient_id)).toMatchObject({
      first_name: 'Rex',
      middle_name: null,
      species: 'human',
      status: 'active',
      practitioner_id: null,
      contacts: '[]',
      address_line_2: null,
      state: 'AK',
      postal_code: '99801-0001',
    });
  });

  it.each(['human', 'canine', 'feline', 'equine', 'avian', 'mammal - other', 'reptilian', 'swine'])(
    'when species is %j, then it is accepted and stored as written',
    async (species) => {
      const res = await post(patientBody(clinic.clinicId, { species }));
      expect(res.status).toBe(200);
      expect((await stored(res.body.data.patient_id))?.species).toBe(species);
    },
  );

  it.each(['male', 'female', 'other', 'unknown'])('when gender is %j, then it is accepted', async (gender) => {
    const res = await post(patientBody(clinic.clinicId, { gender }));
    expect(res.status).toBe(200);
    expect((await stored(res.body.data.patient_id))?.gender).toBe(gender);
  });

  it('when status is inactive, then it is stored inactive', async () => {
    const res = await post(patientBody(clinic.clinicId, { status: 'inactive' }));
    expect(res.status).toBe(200);
    expect((await stored(res.body.data.patient_id))?.status).toBe('inactive');
  });

  it('when every contact key is used with a valid value, then all are stored in order, phone numbers as 555-555-0100', async () => {
    const contacts = [
      { key: 'email', value: 'owner@example.com' },
      { key: 'phone', value: '(555) 555-0102' },
      { key: 'sms', value: '+1 555 555 0103' },
      { key: 'fax', value: '555.555.0104' },
      { key: 'url', value: 'https://example.com/owner' },
    ];
    const res = await post(patientBody(clinic.clinicId, { contacts }));
    expect(res.status).toBe(200);
    expect(JSON.parse((await stored(res.body.data.patient_id))?.contacts ?? '')).toEqual([
      { key: 'email', value: 'owner@example.com' },
      { key: 'phone', value: '555-555-0102' },
      { key: 'sms', value: '555-555-0103' },
      { key: 'fax', value: '555-555-0104' },
      { key: 'url', value: 'https://example.com/owner' },
    ]);
  });

  it('when the contact is the original system\u2019s example 5551234567, then it is accepted and read back as 555-123-4567', async () => {
    const res = await post(patientBody(clinic.clinicId, { contacts: [{ key: 'phone', value: '5551234567' }] }));
    expect(res.status).toBe(200);
    const read = await t.partner(clinic.apiKey).get(`/api/external/patient/${res.body.data.patient_id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.contacts).toEqual([{ key: 'phone', value: '555-123-4567' }]);
  });

  it('when dob is today, then it is accepted', async () => {
    const res = await post(patientBody(clinic.clinicId, { dob: '2025-06-15' }));
    expect(res.status).toBe(200);
  });

  const missing = (field: string) => [`${field} is missing`, { [field]: undefined }, field, 'is required'] as const;
  const address = (overrides: Record<string, unknown>) => ({
    addresses: [{ addressLine1: '2 Elm St', city: 'Sacramento', state: 'CA', postalCode: '95814', ...overrides }],
  });
  const contact = (key: string, value: unknown) => ({ contacts: [{ key, value }] });
  const PHONE = /must be a US phone number/;
  const cases: readonly (readonly [string, Record<string, unknown>, string, string | RegExp])[] = [
    missing('first_name'),
    missing('last_name'),
    missing('gender'),
    missing('dob'),
    missing('assigned_clinic'),
    missing('addresses'),
    ['first_name is blank', { first_name: '  ' }, 'first_name', 'must not be blank'],
    ['last_name is empty', { last_name: '' }, 'last_name', 'must not be empty'],
    ['gender is not in the list', { gender: 'M' }, 'gender', 'must be one of: "male", "female", "other", "unknown"'],
    ['gender is capitalised', { gender: 'Female' }, 'gender', /must be one of/],
    ['status is not in the list', { status: 'deleted' }, 'status', 'must be one of: "active", "inactive"'],
    ['species is not in the list', { species: 'dog' }, 'species', /must be one of: "human", .*"mammal - other"/],
    ['species is mammal-other without spaces', { species: 'mammal-other' }, 'species', /must be one of/],
    ['species is capitalised', { species: 'Canine' }, 'species', /must be one of/],
    ['dob is February 30th', { dob: '2023-02-30' }, 'dob', 'must be a real calendar date written YYYY-MM-DD'],
    ['dob is written US style', { dob: '12/09/1980' }, 'dob', 'must be a real calendar date written YYYY-MM-DD'],
    ['dob is a date-time', { dob: '1980-12-09T00:00:00Z' }, 'dob', 'must be a real calendar date written YYYY-MM-DD'],
    ['dob is in the future', { dob: '2025-06-17' }, 'dob', 'must not be in the future'],
    ['dob is before 1900', { dob: '1899-12-31' }, 'dob', 'must not be before 1900-01-01'],
    ['practitioner_id is not a UUID', { practitioner_id: 'dr-1' }, 'practitioner_id', 'must be a UUID'],
    ['assigned_clinic is not a UUID', { assigned_clinic: 42 }, 'assigned_clinic', 'must be a string'],
    ['addresses is empty', { addresses: [] }, 'addresses', 'must have at least 1 item'],
    [
      'addresses has two entries',
      { addresses: [address({}).addresses[0], address({}).addresses[0]] },
      'addresses',
      'must have at most 1 item',
    ],
    ['addresses is an object', { addresses: address({}).addresses[0] }, 'addresses', 'must be an array'],
    ['the address has no addressLine1', address({ addressLine1: undefined }), 'addresses[0].addressLine1', 'is required'],
    ['the address has no city', address({ city: undefined }), 'addresses[0].city', 'is required'],
    ['the address has no state', address({ state: undefined }), 'addresses[0].state', 'is required'],
    ['the address has no postalCode', address({ postalCode: undefined }), 'addresses[0].postalCode', 'is required'],
    [
      'the address state is unknown',
      address({ state: 'XX' }),
      'addresses[0].state',
      'must be a two-letter US state code, such as CA, DC or PR',
    ],
    ['the address postalCode is not a ZIP', address({ postalCode: '9581' }), 'addresses[0].postalCode', /ZIP code of 5 digits/],
    [
      'the address has a zip field',
      address({ zip: '95814' }),
      'addresses[0].zip',
      'is not a known field; did you mean postalCode?',
    ],
    ['contacts is not an array', { contacts: { email: 'a@example.com' } }, 'contacts', 'must be an array'],
    [
      'a contact key is unknown',
      contact('telegram', '@grace'),
      'contacts[0].key',
      'must be one of: "email", "phone", "url", "sms", "fax"',
    ],
    [
      'an email contact is not an email',
      contact('email', 'grace-at-example.com'),
      'contacts[0].value',
      'must be a valid email address',
    ],
    ['a phone contact is not a US phone', contact('phone', '+44 20 7946 0958'), 'contacts[0].value', PHONE],
    ['an sms contact is too short', contact('sms', '555-0100'), 'contacts[0].value', PHONE],
    ['a phone contact has 11 digits not starting with 1', contact('phone', '55512345678'), 'contacts[0].value', PHONE],
    ['a fax contact has letters', contact('fax', '555-FAX-0100'), 'contacts[0].value', PHONE],
    ['a url contact is not http(s)', contact('url', 'ftp://example.com'), 'contacts[0].value', 'must be an absolute http(s) URL'],
    ['a contact value is empty', contact('phone', ''), 'contacts[0].value', /must not be empty|US phone/],
    ['a contact has no value', { contacts: [{ key: 'email' }] }, 'contacts[0].value', 'is required'],
    [
      'a contact has an extra field',
      { contacts: [{ key: 'email', value: 'a@example.com', primary: true }] },
      'contacts[0].primary',
      'is not a known field',
    ],
  ];

  it.each(cases)(
    'when %s, then 400 VALIDATION_ERROR names the field and nothing is stored',
    async (_label, overrides, field, message) => {
      const before = await count();
      const res = await post(patientBody(clinic.clinicId, overrides));
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.error.details)).toEqual([field]);
      if (typeof message === 'string') expect(res.body.error.details[field]).toBe(message);
      else expect(res.body.error.details[field]).toMatch(message);
      expect(res.body.error.message).toContain(field);
      expect(await count()).toBe(before);
    },
  );

  it('when several fields and contacts are invalid, then every one is named in details at once', async () => {
    const res = await post(
      patientBody(clinic.clinicId, {
        gender: 'x',
        dob: '2023-02-30',
        contacts: [
          { key: 'email', value: 'bad' },
          { key: 'phone', value: '555-555-0100' },
          { key: 'sms', value: '12' },
        ],
        addresses: [{ addressLine1: '2 Elm St', city: 'Sacramento', state: 'ZZ', postalCode: 'abc' }],
      }),
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual([
      'addresses[0].postalCode',
      'addresses[0].state',
      'contacts[0].value',
      'contacts[2].value',
      'dob',
      'gender',
    ]);
  });

  it.each([
    ['email', 'contacts (as {"key": "email", "value": …})'],
    ['phone', 'contacts (as {"key": "phone", "value": …})'],
    ['address_line1', 'addresses[0].addressLine1'],
    ['city', 'addresses[0].city'],
    ['state', 'addresses[0].state'],
    ['zip', 'addresses[0].postalCode'],
    ['date_of_birth', 'dob'],
    ['clinic_id', 'assigned_clinic'],
  ])('when the outdated top-level field %s is sent, then 400 says it is unknown and hints %s', async (oldName, hint) => {
    const res = await post(patientBody(clinic.clinicId, { [oldName]: 'x' }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ [oldName]: `is not a known field; did you mean ${hint}?` });
  });

  it('when practitioner_id is a practitioner of another clinic, then 404 Practitioner not found exactly as for an unknown id, and nothing is stored', async () => {
    const before = await count();
    const foreign = await post(patientBody(clinic.clinicId, { practitioner_id: foreignPractitionerId }));
    const unknown = await post(patientBody(clinic.clinicId, { practitioner_id: UNKNOWN_ID }));
    for (const res of [foreign, unknown]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({
        code: 'NOT_FOUND',
        message: 'Practitioner not found',
        details: { practitioner_id: 'practitioner not found' },
      });
    }
    expect({ ...foreign.body.error, request_id: '' }).toEqual({ ...unknown.body.error, request_id: '' });
    expect(await count()).toBe(before);
  });

  it('when no API key is sent, then 401 Unauthorized and nothing is stored', async () => {
    const before = await count();
    const res = await t.request('POST', URL_, {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: patientBody(clinic.clinicId),
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.body.error.message).toMatch(/^Unauthorized/);
    expect(await count()).toBe(before);
  });

  it('when assigned_clinic is another existing clinic, then 403 FORBIDDEN and nothing is stored', async () => {
    const before = await count();
    const res = await post(patientBody(other.clinicId));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await count()).toBe(before);
  });

  it('when assigned_clinic is an unknown clinic, then 400 Clinic not found naming assigned_clinic', async () => {
    const before = await count();
    const res = await post(patientBody(UNKNOWN_ID));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Clinic not found',
      details: { assigned_clinic: 'clinic not found' },
    });
    expect(await count()).toBe(before);
  });
});

describe.each(DIALECTS)('GET /api/external/patient/{id} on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: () => NOW });
    clinic = await t.createClinic();
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  it('when the patient is of the key\u2019s clinic, then 200 with every stored field in the creation shape', async () => {
    const created = await t.partner(clinic.apiKey).post(
      URL_,
      patientBody(clinic.clinicId, {
        species: 'canine',
        addresses: [{ addressLine1: '2 Elm St', city: 'Sacramento', state: 'ca', postalCode: '95814' }],
      }),
    );
    const id = created.body.data.patient_id as string;
    const res = await t.partner(clinic.apiKey).get(`${URL_}/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Patient retrieved successfully',
      data: {
        patient_id: id,
        first_name: 'Grace',
        middle_name: null,
        last_name: 'Hopper',
        gender: 'female',
        dob: '1980-12-09',
        species: 'canine',
        status: 'active',
        practitioner_id: null,
        assigned_clinic: clinic.clinicId,
        contacts: [
          { key: 'email', value: 'grace@example.com' },
          { key: 'phone', value: '555-555-0101' },
        ],
        addresses: [{ addressLine1: '2 Elm St', addressLine2: null, city: 'Sacramento', state: 'CA', postalCode: '95814' }],
        // Never given: unknown (null), not "none" ([]).
        allergies: null,
        no_known_allergies: false,
        created_at: NOW.toISOString(),
      },
    });
  });

  it('when the patient belongs to another clinic, then 404 exactly as for an unknown id', async () => {
    const created = await t.partner(other.apiKey).post(URL_, patientBody(other.clinicId));
    const foreign = await t.partner(clinic.apiKey).get(`${URL_}/${created.body.data.patient_id}`);
    const unknown = await t.partner(clinic.apiKey).get(`${URL_}/${UNKNOWN_ID}`);
    for (const res of [foreign, unknown]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect(res.body.error.message).toBe('Patient not found');
    }
    expect({ ...foreign.body.error, request_id: '' }).toEqual({ ...unknown.body.error, request_id: '' });
  });

  it('when the id is not a UUID, then 400 names patientId', async () => {
    const res = await t.partner(clinic.apiKey).get(`${URL_}/123`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ patientId: 'must be a UUID' });
  });

  it('when no API key is sent, then 401', async () => {
    const res = await t.request('GET', `${URL_}/${UNKNOWN_ID}`);
    expect(res.status).toBe(401);
  });
});
