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
    },
  },
);
export type PractitionerCreateInput = Static<typeof PractitionerCreateBody>;

export const PractitionerCreated = Type.Object(
  { practitioner_id: Uuid('Identifier of the new practitioner.') },
  { $id: 'PractitionerCreated', additionalProperties: false },
);

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
  },
  { $id: 'Practitioner', additionalProperties: false },
);
export type PractitionerRecord = Static<typeof PractitionerRecord>;
