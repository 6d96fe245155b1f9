import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { practitionerBody, VALID_NPI, veterinarianBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const NOW = new Date('2025-06-15T12:00:00.000Z');
/** New rows get time-ordered ids: UUIDv7 (RFC 9562). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const URL_ = '/api/external/practitioner';

describe.each(DIALECTS)('POST /api/external/practitioner on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: () => NOW });
    clinic = await t.createClinic();
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  const stored = (id: string) => t.ctx.db.selectFrom('practitioners').selectAll().where('id', '=', id).executeTakeFirst();
  const count = async () =>
    (
      await t.ctx.db
        .selectFrom('practitioners')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  const post = (body: unknown, key = clinic.apiKey) => t.partner(key).post(URL_, body);

  it('when a valid human practitioner is posted, then 200 with the spec envelope and the row is stored', async () => {
    const res = await post(practitionerBody(clinic.clinicId, { address_line_2: 'Suite 4' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { practitioner_id: expect.stringMatching(UUID) },
      message: 'Practitioner created successfully',
    });
    expect(Object.keys(res.body.data)).toEqual(['practitioner_id']);
    expect(await stored(res.body.data.practitioner_id)).toEqual({
      id: res.body.data.practitioner_id,
      clinic_id: clinic.clinicId,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada.lovelace@example.com',
      npi: VALID_NPI,
      is_veterinarian: 0,
      phone: '555-555-0100',
      address_line_1: '1 Main St',
      address_line_2: 'Suite 4',
      city: 'Austin',
      state_code: 'TX',
      zip_code: '78701',
      status: 'active',
      created_at: NOW.toISOString(),
      dea_number: null,
      licenses: null,
    });
  });

  it('when names and address have surrounding spaces and the state is lower case, then they are stored trimmed and upper case', async () => {
    const res = await post(
      practitionerBody(clinic.clinicId, {
        first_name: '  Al ',
        last_name: ' Li ',
        address_line_1: ' 9 Oak Ave ',
        address_line_2: '',
        city: ' Washington ',
        state_code: 'dc',
        zip_code: '20001-1234',
        phone: undefined,
      }),
    );
    expect(res.status).toBe(200);
    const row = await stored(res.body.data.practitioner_id);
    expect(row).toMatchObject({
      first_name: 'Al',
      last_name: 'Li',
      address_line_1: '9 Oak Ave',
      address_line_2: null,
      city: 'Washington',
      state_code: 'DC',
      zip_code: '20001-1234',
      phone: null,
    });
  });

  it.each([
    ['1234567890', '123-456-7890'],
    ['(512) 555-0100', '512-555-0100'],
    ['+1 512 555 0100', '512-555-0100'],
  ])(
    'when phone is %j (the original system\u2019s example, or another layout), then it is accepted and stored as %j',
    async (phone, stored_) => {
      const res = await post(practitionerBody(clinic.clinicId, { phone }));
      expect(res.status).toBe(200);
      expect((await stored(res.body.data.practitioner_id))?.phone).toBe(stored_);
    },
  );

  it.each(['PR', 'gu', 'Vi', 'AE'])(
    'when the state code is the territory or military code %j, then it is accepted',
    async (state) => {
      const res = await post(practitionerBody(clinic.clinicId, { state_code: state }));
      expect(res.status).toBe(200);
      expect((await stored(res.body.data.practitioner_id))?.state_code).toBe(state.toUpperCase());
    },
  );

  it('when a veterinarian posts a free-form npi, then it is accepted and stored trimmed', async () => {
    const res = await post(veterinarianBody(clinic.clinicId, { npi: '  VET-TX 4411/b ' }));
    expect(res.status).toBe(200);
    const row = await stored(res.body.data.practitioner_id);
    expect(row).toMatchObject({ npi: 'VET-TX 4411/b', is_veterinarian: 1, first_name: 'James' });
  });

  it('when a veterinarian sends an NPI-like number with a bad check digit, then it is accepted (veterinarians have no NPI)', async () => {
    const res = await post(veterinarianBody(clinic.clinicId, { npi: '1234567890' }));
    expect(res.status).toBe(200);
  });

  it.each([
    ['1234567890', 'a wrong check digit'],
    ['123456789', 'nine digits'],
    ['VET-TX-4411', 'a free-form identifier'],
    ['12345 67893', 'an inner space'],
  ])('when a human practitioner has npi %j (%s), then 400 names npi and nothing is stored', async (npi) => {
    const before = await count();
    const res = await post(practitionerBody(clinic.clinicId, { npi }));
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual({
      npi: 'must be a 10-digit NPI with a valid check digit (a veterinarian sets is_veterinarian to true)',
    });
    expect(res.body.error.message).toContain('npi');
    expect(await count()).toBe(before);
  });

  it('when a human NPI is valid but padded with spaces, then it is accepted and stored trimmed', async () => {
    const res = await post(practitionerBody(clinic.clinicId, { npi: ` ${VALID_NPI} ` }));
    expect(res.status).toBe(200);
    expect((await stored(res.body.data.practitioner_id))?.npi).toBe(VALID_NPI);
  });

  const missing = (field: string) => [`${field} is missing`, { [field]: undefined }, field, 'is required'] as const;
  const cases: readonly (readonly [string, Record<string, unknown>, string, string | RegExp])[] = [
    missing('first_name'),
    missing('last_name'),
    missing('email'),
    missing('npi'),
    missing('is_veterinarian'),
    missing('assigned_clinic'),
    missing('address_line_1'),
    missing('city'),
    missing('state_code'),
    missing('zip_code'),
    ['first_name has 1 character', { first_name: 'A' }, 'first_name', /at least 2 characters|2 to 100/],
    ['first_name has 1 character between spaces', { first_name: ' A ' }, 'first_name', /2 to 100/],
    ['last_name has 1 character', { last_name: 'B' }, 'last_name', /2 to 100/],
    ['last_name is a number', { last_name: 42 }, 'last_name', /2 to 100/],
    ['email is not an email', { email: 'ada.example.com' }, 'email', 'must be a valid email address'],
    ['email has no domain', { email: 'ada@' }, 'email', 'must be a valid email address'],
    ['npi is blank', { npi: '   ' }, 'npi', 'must not be blank'],
    ['npi is a number', { npi: 1234567893 }, 'npi', 'must be a string'],
    ['is_veterinarian is a string', { is_veterinarian: 'false' }, 'is_veterinarian', 'must be a boolean'],
    ['assigned_clinic is not a UUID', { assigned_clinic: 'clinic-1' }, 'assigned_clinic', 'must be a UUID'],
    ['phone is not a US phone number', { phone: '+44 20 7946 0958' }, 'phone', /must be a US phone number/],
    ['phone is empty', { phone: '' }, 'phone', /must be a US phone number/],
    ['phone has 9 digits', { phone: '123456789' }, 'phone', /must be a US phone number/],
    ['phone has letters', { phone: '555-CALL-NOW' }, 'phone', /must be a US phone number/],
    ['address_line_1 is blank', { address_line_1: '  ' }, 'address_line_1', 'must not be blank'],
    ['city is empty', { city: '' }, 'city', 'must not be empty'],
    ['state_code is unknown', { state_code: 'ZZ' }, 'state_code', 'must be a two-letter US state code, such as CA, DC or PR'],
    ['state_code is a state name', { state_code: 'Texas' }, 'state_code', /two-letter US state code/],
    ['zip_code has 4 digits', { zip_code: '7870' }, 'zip_code', 'must be a ZIP code of 5 digits or ZIP+4 (12345 or 12345-6789)'],
    ['zip_code is a broken ZIP+4', { zip_code: '78701-12' }, 'zip_code', /ZIP code/],
    ['zip_code is a number', { zip_code: 78701 }, 'zip_code', /ZIP code/],
  ];

  it.each(cases)(
    'when %s, then 400 VALIDATION_ERROR names the field and nothing is stored',
    async (_label, overrides, field, message) => {
      const before = await count();
      const res = await post(practitionerBody(clinic.clinicId, overrides));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.error.details)).toEqual([field]);
      if (typeof message === 'string') expect(res.body.error.details[field]).toBe(message);
      else expect(res.body.error.details[field]).toMatch(message);
      expect(await count()).toBe(before);
    },
  );

  it('when several fields are invalid, then every one is named in details at once', async () => {
    const res = await post(
      practitionerBody(clinic.clinicId, { email: 'nope', state_code: 'ZZ', zip_code: '1', first_name: 'A' }),
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual(['email', 'first_name', 'state_code', 'zip_code']);
  });

  it.each([
    ['npi_number', 'npi'],
    ['clinic_id', 'assigned_clinic'],
    ['address_line1', 'address_line_1'],
    ['zip', 'zip_code'],
  ])('when the outdated field %s is sent, then 400 says it is unknown and hints %s', async (oldName, newName) => {
    const body = practitionerBody(clinic.clinicId, { [oldName]: 'x' });
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error.details[oldName]).toBe(`is not a known field; did you mean ${newName}?`);
  });

  it('when a field nobody knows is sent, then 400 says it is not a known field', async () => {
    const res = await post(practitionerBody(clinic.clinicId, { favourite_colour: 'blue' }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ favourite_colour: 'is not a known field' });
  });

  it('when no API key is sent, then 401 Unauthorized and nothing is stored', async () => {
    const before = await count();
    const res = await t.request('POST', URL_, {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: practitionerBody(clinic.clinicId),
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.body.error.message).toMatch(/^Unauthorized/);
    expect(await count()).toBe(before);
  });

  it('when assigned_clinic is another existing clinic, then 403 FORBIDDEN and nothing is stored', async () => {
    const before = await count();
    const res = await post(practitionerBody(other.clinicId));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await count()).toBe(before);
  });

  it('when assigned_clinic is an unknown clinic, then 400 Clinic not found naming assigned_clinic', async () => {
    const before = await count();
    const res = await post(practitionerBody('7d3f1a52-7c1e-4d8b-9a55-0f6a1b2c3d4e'));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Clinic not found',
      details: { assigned_clinic: 'clinic not found' },
    });
    expect(await count()).toBe(before);
  });
});

describe.each(DIALECTS)('GET /api/external/practitioner/{id} on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: () => NOW });
    clinic = await t.createClinic();
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  it('when the practitioner is of the key\u2019s clinic, then 200 with every stored field', async () => {
    const created = await t.partner(clinic.apiKey).post(URL_, practitionerBody(clinic.clinicId, { state_code: 'tx' }));
    const id = created.body.data.practitioner_id as string;
    const res = await t.partner(clinic.apiKey).get(`${URL_}/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Practitioner retrieved successfully',
      data: {
        practitioner_id: id,
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada.lovelace@example.com',
        npi: VALID_NPI,
        is_veterinarian: false,
        assigned_clinic: clinic.clinicId,
        phone: '555-555-0100',
        address_line_1: '1 Main St',
        address_line_2: null,
        city: 'Austin',
        state_code: 'TX',
        zip_code: '78701',
        status: 'active',
        created_at: NOW.toISOString(),
        dea_number: null,
        licenses: [],
      },
    });
  });

  it('when the practitioner belongs to another clinic, then 404 exactly as for an unknown id', async () => {
    const created = await t.partner(other.apiKey).post(URL_, practitionerBody(other.clinicId));
    const foreign = await t.partner(clinic.apiKey).get(`${URL_}/${created.body.data.practitioner_id}`);
    const unknown = await t.partner(clinic.apiKey).get(`${URL_}/0b5e7c9a-1d2f-4e3a-8b4c-5d6e7f809a1b`);
    for (const res of [foreign, unknown]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect(res.body.error.message).toBe('Practitioner not found');
    }
    expect({ ...foreign.body.error, request_id: '' }).toEqual({ ...unknown.body.error, request_id: '' });
  });

  it('when the id is not a UUID, then 400 names practitionerId', async () => {
    const res = await t.partner(clinic.apiKey).get(`${URL_}/not-a-uuid`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ practitionerId: 'must be a UUID' });
  });

  it('when no API key is sent, then 401', async () => {
    const res = await t.request('GET', `${URL_}/0b5e7c9a-1d2f-4e3a-8b4c-5d6e7f809a1b`);
    expect(res.status).toBe(401);
  });
});
