/**
 * Valid request bodies of the spec's reference shapes, to be overridden field by field.
 * Test data only: the names and numbers below belong to no one.
 */

/** A real-format NPI (valid Luhn check digit over the 80840 prefix). */
export const VALID_NPI = '1234567893';

export function practitionerBody(clinicId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada.lovelace@example.com',
    npi: VALID_NPI,
    is_veterinarian: false,
    assigned_clinic: clinicId,
    phone: '555-555-0100',
    address_line_1: '1 Main St',
    city: 'Austin',
    state_code: 'TX',
    zip_code: '78701',
    ...overrides,
  };
}

export function veterinarianBody(clinicId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return practitionerBody(clinicId, {
    first_name: 'James',
    last_name: 'Herriot',
    email: 'james@example.com',
    npi: 'VET-TX-4411',
    is_veterinarian: true,
    ...overrides,
  });
}

export function patientBody(clinicId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Grace',
    last_name: 'Hopper',
    gender: 'female',
    dob: '1980-12-09',
    species: 'human',
    status: 'active',
    assigned_clinic: clinicId,
    contacts: [
      { key: 'email', value: 'grace@example.com' },
      { key: 'phone', value: '555-555-0101' },
    ],
    addresses: [{ addressLine1: '2 Elm St', addressLine2: 'Apt 3', city: 'Sacramento', state: 'CA', postalCode: '95814' }],
    ...overrides,
  };
}
