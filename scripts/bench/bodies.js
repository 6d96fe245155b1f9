// Request bodies of the partner API, shared by provisioning and the load generator. `n` varies what
// a partner would vary from one request to the next (names, emails), so that no two are identical.

/** A valid NPI (Luhn over the 80840 prefix), the one docs/ uses. */
const NPI = '1234567893';
export const CARRIER = 'fedex';
export const SERVICE = 'fedex_ground';
export const MEDICATION = 'Semaglutide';

export const practitionerBody = (clinicId, n) => ({
  first_name: 'Ada',
  last_name: `Lovelace ${n}`,
  email: `ada.${n}@example.com`,
  npi: NPI,
  is_veterinarian: false,
  assigned_clinic: clinicId,
  address_line_1: '1 Main St',
  city: 'Austin',
  state_code: 'TX',
  zip_code: '78701',
});

export const patientBody = (clinicId, practitionerId, n) => ({
  first_name: 'Grace',
  last_name: `Hopper ${n}`,
  gender: 'female',
  dob: '1980-12-09',
  practitioner_id: practitionerId,
  assigned_clinic: clinicId,
  contacts: [
    { key: 'email', value: `grace.${n}@example.com` },
    { key: 'phone', value: '555-555-0101' },
  ],
  addresses: [{ addressLine1: '2 Elm St', city: 'Sacramento', state: 'CA', postalCode: '95814' }],
});

/** One medication with the most refills the API allows, so that any order can be refilled. */
export const orderBody = (clinicId, patientId, practitionerId) => ({
  patient_id: patientId,
  practitioner_id: practitionerId,
  clinic_id: clinicId,
  carrier_id: CARRIER,
  service_id: SERVICE,
  medication_requests: [
    {
      medication: MEDICATION,
      dose: '0.25mg',
      quantity: 1,
      refills: '99',
      direction: 'Inject 0.25 mg once weekly',
      days_supply: 28,
    },
  ],
});

export const refillBody = (orderId) => ({ medication_request_id: orderId });
