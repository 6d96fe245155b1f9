import { Type, type Static } from '@sinclair/typebox';
import { AddressText, NameText, Nullable, textDoc, Uuid } from '../contracts/schemas.js';
import { AddressLine2, StateCode, ZipCode } from '../reference/us-address.schemas.js';
import { US_PHONE_MESSAGE, US_PHONE_PATTERN } from '../reference/us-phone.js';

/** A string enum as `{type: string, enum}`, so that a bad value gets one "must be one of" message. */
const StringEnum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], description });

export const GENDERS = ['male', 'female', 'other', 'unknown'] as const;
export const PATIENT_STATUSES = ['active', 'inactive'] as const;
/** The spec's list, exactly as written (`mammal - other` has a space, a hyphen and a space). */
export const SPECIES = ['human', 'canine', 'feline', 'equine', 'avian', 'mammal - other', 'reptilian', 'swine'] as const;
export const CONTACT_KEYS = ['email', 'phone', 'url', 'sms', 'fax'] as const;
export type ContactKey = (typeof CONTACT_KEYS)[number];

/** The contact keys whose value is a US phone number (stored normalized: reference/us-phone.ts). */
export const PHONE_KEYS: readonly ContactKey[] = ['phone', 'sms', 'fax'];

/** `value` must fit `key`: conditional sub-schemas, so that every bad contact is reported at once. */
const whenKey = (keys: readonly ContactKey[], value: Record<string, unknown>) => ({
  if: { properties: { key: { enum: [...keys] } }, required: ['key'] },
  then: { properties: { value } },
});

export const Contact = Type.Object(
  {
    key: StringEnum(CONTACT_KEYS, 'Kind of contact: email, phone, url, sms or fax.'),
    value: Type.String({
      minLength: 1,
      maxLength: 254,
      pattern: '\\S',
      description:
        'An email address for `email`; a US phone number for `phone`, `sms` and `fax` (555-555-0100, (555) 555-0100, 555.555.0100, 5555550100, +1 555 555 0100; stored as 555-555-0100); an absolute http(s) URL for `url`.',
    }),
  },
  {
    additionalProperties: false,
    allOf: [
      whenKey(['email'], { format: 'email' }),
      whenKey(PHONE_KEYS, { pattern: US_PHONE_PATTERN, 'x-message': US_PHONE_MESSAGE }),
      whenKey(['url'], { format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', 'x-message': 'must be an absolute http(s) URL' }),
    ],
  },
);

export const Address = Type.Object(
  {
    addressLine1: AddressText(200, { description: 'Street address.' }),
    addressLine2: Type.Optional(AddressLine2('Apartment, suite, unit')),
    city: AddressText(100, { description: 'City.' }),
    state: StateCode('State'),
    postalCode: ZipCode('ZIP code'),
  },
  {
    additionalProperties: false,
    'x-aliases': {
      address_line1: 'addressLine1',
      address_line_1: 'addressLine1',
      address_line2: 'addressLine2',
      address_line_2: 'addressLine2',
      state_code: 'state',
      zip: 'postalCode',
      zip_code: 'postalCode',
      postal_code: 'postalCode',
    },
  },
);

/**
 * The severity of a reaction, as FHIR's AllergyIntolerance.reaction.severity codes it
 * (http://hl7.org/fhir/reaction-event-severity): mild, moderate, severe.
 */
export const ALLERGY_SEVERITIES = ['mild', 'moderate', 'severe'] as const;
export type AllergySeverity = (typeof ALLERGY_SEVERITIES)[number];
export const MAX_ALLERGIES = 50;

/** One recorded allergy (FHIR AllergyIntolerance's code, reaction manifestation and severity, simplified). */
export const Allergy = Type.Object(
  {
    substance: NameText(200, {
      description:
        'What the patient is allergic to, e.g. `naltrexone` or `sulfa drugs`. Compared with each active ingredient at ordering by name, ignoring case, spaces and salt words (docs/compounding.md#allergies-and-duplicate-therapy).',
    }),
    reaction: Type.Optional(
      Type.String({
        maxLength: 200,
        description: textDoc('plain', 'The reaction, e.g. `hives` (optional; an empty string means none).'),
      }),
    ),
    severity: Type.Optional(StringEnum(ALLERGY_SEVERITIES, 'mild, moderate or severe (FHIR reaction severity); optional.')),
  },
  { additionalProperties: false },
);
export type AllergyInput = Static<typeof Allergy>;

const allergyFields = {
  allergies: Type.Array(Allergy, {
    maxItems: MAX_ALLERGIES,
    description: `The patient\u2019s allergies, at most ${MAX_ALLERGIES}; an empty list records none.`,
  }),
  no_known_allergies: Type.Boolean({
    description: 'True when the prescriber recorded that the patient has no known allergies; not with a non-empty `allergies`.',
  }),
};

/** A recorded allergy as it is read (the patient's read; the console's order). */
export const AllergyRecord = Type.Object(
  {
    substance: Type.String(),
    reaction: Nullable(Type.String()),
    severity: Nullable(Type.Union(ALLERGY_SEVERITIES.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false },
);

/** PUT /api/external/patient/{patientId}/allergies: the whole list, replacing the one recorded. */
export const AllergiesBody = Type.Object(
  {
    allergies: allergyFields.allergies,
    no_known_allergies: Type.Optional(allergyFields.no_known_allergies),
  },
  { $id: 'PatientAllergiesRequest', additionalProperties: false },
);
export type AllergiesInput = Static<typeof AllergiesBody>;

const toContacts = (key: ContactKey) => `contacts (as {"key": "${key}", "value": …})`;

export const PatientCreateBody = Type.Object(
  {
    first_name: NameText(100, { description: 'First name (surrounding spaces removed).' }),
    middle_name: Type.Optional(
      Type.String({
        maxLength: 100,
        description: textDoc('name', 'Middle name (optional; an empty string means none).'),
        'x-text': 'name',
      }),
    ),
    last_name: NameText(100, { description: 'Last name (surrounding spaces removed).' }),
    gender: StringEnum(GENDERS, 'One of male, female, other, unknown.'),
    dob: Type.String({
      format: 'date',
      description: 'Date of birth, a real calendar date written YYYY-MM-DD, not in the future and not before 1900-01-01.',
      'x-message': 'must be a real calendar date written YYYY-MM-DD',
      examples: ['1980-12-09'],
    }),
    species: Type.Optional(StringEnum(SPECIES, 'One of the spec\u2019s species, exactly as written. Defaults to `human`.')),
    status: Type.Optional(StringEnum(PATIENT_STATUSES, 'active or inactive. Defaults to `active`.')),
    practitioner_id: Type.Optional(
      Uuid("The patient's practitioner: a practitioner of the same clinic (otherwise 404 Practitioner not found)."),
    ),
    assigned_clinic: Uuid("The patient's clinic: the API key's own clinic."),
    contacts: Type.Optional(
      Type.Array(Contact, { maxItems: 10, description: 'Up to 10 contacts; keys email, phone, url, sms, fax.' }),
    ),
    addresses: Type.Array(Address, {
      minItems: 1,
      maxItems: 1,
      description: 'Exactly one address: where the medication is shipped.',
    }),
    allergies: Type.Optional(allergyFields.allergies),
    no_known_allergies: Type.Optional(allergyFields.no_known_allergies),
  },
  {
    $id: 'PatientCreateRequest',
    additionalProperties: false,
    'x-aliases': {
      date_of_birth: 'dob',
      clinic_id: 'assigned_clinic',
      email: toContacts('email'),
      phone: toContacts('phone'),
      address: 'addresses',
      address_line1: 'addresses[0].addressLine1',
      address_line_1: 'addresses[0].addressLine1',
      address_line2: 'addresses[0].addressLine2',
      address_line_2: 'addresses[0].addressLine2',
      city: 'addresses[0].city',
      state: 'addresses[0].state',
      state_code: 'addresses[0].state',
      zip: 'addresses[0].postalCode',
      zip_code: 'addresses[0].postalCode',
      postal_code: 'addresses[0].postalCode',
      sex: 'gender',
      firstName: 'first_name',
      lastName: 'last_name',
    },
  },
);
export type PatientCreateInput = Static<typeof PatientCreateBody>;

export const PatientCreated = Type.Object(
  { patient_id: Uuid('Identifier of the new patient.') },
  { $id: 'PatientCreated', additionalProperties: false },
);

export const PatientParams = Type.Object({ patientId: Uuid('Identifier of the patient.') });

const NullableString = () => Nullable(Type.String());

/** A stored patient as partners read it back: every field listed (the response is an allow-list). */
export const PatientRecord = Type.Object(
  {
    patient_id: Uuid(),
    first_name: Type.String(),
    middle_name: NullableString(),
    last_name: Type.String(),
    gender: Type.String(),
    dob: Type.String({ format: 'date' }),
    species: Type.String(),
    status: Type.String(),
    practitioner_id: Type.Union([Uuid(), Type.Null()]),
    assigned_clinic: Uuid(),
    contacts: Type.Array(Type.Object({ key: Type.String(), value: Type.String() }, { additionalProperties: false })),
    addresses: Type.Array(
      Type.Object(
        {
          addressLine1: Type.String(),
          addressLine2: NullableString(),
          city: Type.String(),
          state: Type.String({ description: 'Upper case.' }),
          postalCode: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    allergies: Nullable(Type.Array(AllergyRecord), {
      description: 'The recorded allergies; `[]` when none are recorded, null when they were never given.',
    }),
    no_known_allergies: Type.Boolean({ description: 'True when the prescriber recorded no known allergies.' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Patient', additionalProperties: false },
);
export type PatientRecord = Static<typeof PatientRecord>;
