import { Type, type Static } from '@sinclair/typebox';
import { AddressText, Nullable, textDoc, Uuid } from '../contracts/schemas.js';
import { AddressLine2, StateCode, UsPhone, ZipCode } from '../reference/us-address.schemas.js';

/** A name of at least 2 characters once surrounding spaces are removed (the spec's Limits). */
const PersonName = (description: string) =>
  Type.String({
    minLength: 2,
    maxLength: 100,
    pattern: '\\S[\\s\\S]*\\S',
    description: textDoc('name', `${description}: 2 to 100 characters, surrounding spaces not counted (they are removed).`),
    'x-message': 'must be a name of 2 to 100 characters (surrounding spaces not counted)',
    'x-text': 'name',
  });

/** The most state licences a practitioner lists: one in every state code there is, and then some. */
export const MAX_LICENSES = 60;

const DEA_NUMBER_DOC =
  'DEA registration number: two letters and seven digits, in any letter case (stored upper case). The first letter is a DEA registrant type (A, B, C, D, E, F, G, H, J, K, L, M, P, R, S, T, U or X) and the last digit the check digit: (d1+d3+d5) + 2\u00d7(d2+d4+d6) ends in d7. Required of the prescriber of an order holding a controlled-schedule medication.';

const DeaNumber = (description: string) =>
  Type.String({
    minLength: 9,
    maxLength: 9,
    pattern: '^[A-Za-z]{2}[0-9]{7}$',
    description,
    'x-message': 'must be two letters and seven digits, e.g. AB1234563',
    examples: ['AB1234563'],
  });

const License = Type.Object(
  {
    state_code: StateCode('The state that issued the licence'),
    number: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^ *[A-Za-z0-9][A-Za-z0-9 ./-]*$',
      description:
        'The licence number as the state writes it: letters, digits, spaces, `.`, `/` and `-`, 1 to 40 characters; surrounding spaces are removed.',
      'x-message': 'must be 1 to 40 letters, digits, spaces, `.`, `/` or `-`, starting with a letter or digit',
      examples: ['A123456'],
    }),
    expires_on: Type.String({
      format: 'date',
      description: 'The last day the licence is valid, YYYY-MM-DD (an expired licence may be listed; it counts for no order).',
      'x-message': 'must be a real calendar date written YYYY-MM-DD',
      examples: ['2027-06-30'],
    }),
  },
  { additionalProperties: false },
);

const Licenses = Type.Array(License, {
  maxItems: MAX_LICENSES,
  description: `The practitioner\u2019s state licences, at most ${MAX_LICENSES}. With REQUIRE_PRESCRIBER_STATE_LICENSE on, an order needs one in the patient\u2019s state, unexpired.`,
});

const Email = (description: string) =>
  Type.String({ format: 'email', maxLength: 254, description, examples: ['ada.lovelace@example.com'] });

export const PractitionerCreateBody = Type.Object(
  {
    first_name: PersonName('First name'),
    last_name: PersonName('Last name'),
    email: Email('Email address.'),
    npi: Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '\\S',
      description:
        'National Provider Identifier. For a human practitioner (is_veterinarian false): exactly 10 digits with a valid check digit (Luhn over the 80840 prefix). For a veterinarian, who has no NPI: any identifier of 1 to 50 characters (e.g. a state licence number), surrounding spaces removed.',
      examples: ['1234567893'],
    }),
    is_veterinarian: Type.Boolean({ description: 'True for a veterinarian.' }),
    assigned_clinic: Uuid("The clinic of the practitioner: the API key's own clinic."),
    phone: Type.Optional(UsPhone('Phone number')),
    address_line_1: AddressText(200, { description: 'Street address.' }),
    address_line_2: Type.Optional(AddressLine2('Apartment, suite, unit')),
    city: AddressText(100, { description: 'City.' }),
    state_code: StateCode('State'),
    zip_code: ZipCode('ZIP code'),
    dea_number: Type.Optional(
      Nullable(DeaNumber(DEA_NUMBER_DOC), { description: `${DEA_NUMBER_DOC} Optional: null or absent for none.` }),
    ),
    licenses: Type.Optional(Licenses),
  },
  {
    $id: 'PractitionerCreateRequest',
    additionalProperties: false,
    'x-aliases': {
      npi_number: 'npi',
      clinic_id: 'assigned_clinic',
      address_line1: 'address_line_1',
      address_line2: 'address_line_2',
      addressLine1: 'address_line_1',
      addressLine2: 'address_line_2',
      state: 'state_code',
      zip: 'zip_code',
      postal_code: 'zip_code',
      postalCode: 'zip_code',
      phone_number: 'phone',
      firstName: 'first_name',
      lastName: 'last_name',
      date_of_birth: 'nothing: a practitioner has no date of birth',
      dea: 'dea_number',
      licences: 'licenses',
      state_licenses: 'licenses',
    },
  },
);
export type PractitionerCreateInput = Static<typeof PractitionerCreateBody>;

export const PractitionerCreated = Type.Object(
  { practitioner_id: Uuid('Identifier of the new practitioner.') },
  { $id: 'PractitionerCreated', additionalProperties: false },
);

/** PUT …/credentials: both fields, which replace the stored ones. */
export const PractitionerCredentialsBody = Type.Object(
  {
    dea_number: Nullable(DeaNumber(DEA_NUMBER_DOC), { description: `${DEA_NUMBER_DOC} Null removes it.` }),
    licenses: Licenses,
  },
  {
    $id: 'PractitionerCredentialsRequest',
    additionalProperties: false,
    'x-aliases': { dea: 'dea_number', licences: 'licenses', state_licenses: 'licenses' },
  },
);
export type PractitionerCredentialsInput = Static<typeof PractitionerCredentialsBody>;

export const PractitionerParams = Type.Object({ practitionerId: Uuid('Identifier of the practitioner.') });

const NullableString = () => Nullable(Type.String());

/** A stored practitioner as partners read it back: every field listed (the response is an allow-list). */
export const PractitionerRecord = Type.Object(
  {
    practitioner_id: Uuid(),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String(),
    npi: Type.String(),
    is_veterinarian: Type.Boolean(),
    assigned_clinic: Uuid(),
    phone: NullableString(),
    address_line_1: Type.String(),
    address_line_2: NullableString(),
    city: Type.String(),
    state_code: Type.String({ description: 'Upper case.' }),
    zip_code: Type.String(),
    status: Type.String({ description: 'Always `active` today.' }),
    created_at: Type.String({ format: 'date-time' }),
    dea_number: Nullable(Type.String(), { description: 'The DEA registration number, upper case; null when none was given.' }),
    licenses: Type.Array(
      Type.Object(
        { state_code: Type.String(), number: Type.String(), expires_on: Type.String({ format: 'date' }) },
        { additionalProperties: false },
      ),
      { description: 'The state licences as given (state codes upper case), expired ones included; empty when none.' },
    ),
  },
  { $id: 'Practitioner', additionalProperties: false },
);
export type PractitionerRecord = Static<typeof PractitionerRecord>;
