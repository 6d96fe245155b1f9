// Request bodies of the partner API, shared by provisioning and the load generator. `n` varies what
// a partner would vary from one request to the next (names, emails), so that no two are identical.

/** A valid NPI (Luhn over the 80840 prefix), the one docs/ uses. */
const NPI = '1234567893';
export const CARRIER = 'fedex';
export const SERVICE = 'fedex_ground';
export const MEDICATION = 'Semaglutide';
/**
 * An entry with a formula (issue 38, item 7): ordering it reads the patient's items in use (the
 * duplicate-therapy lookup of src/holds/intake-hold.ts) and compares every ingredient with the
 * patient's allergies.
 */
export const FORMULA_MEDICATION = 'Semaglutide / cyanocobalamin';
export const formulaEntryBody = () => ({
  name: FORMULA_MEDICATION,
  strength: '2.5 mg/mL',
  dosage_form: 'injectable solution',
  preparation: 'sterile',
  bud_category: 'aqueous_preserved',
  storage: 'refrigerated',
  therapeutic_class: 'glp1_receptor_agonist',
  ingredients: [
    { name: 'semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true },
    { name: 'cyanocobalamin', strength: '0.5', unit: 'mg/mL', active: true },
    { name: 'benzyl alcohol', strength: '0.9', unit: '%', active: false },
    { name: 'bacteriostatic water', strength: 'q.s.', unit: 'mL', active: false },
  ],
});

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
export const orderBody = (clinicId, patientId, practitionerId, medication = MEDICATION) => ({
  patient_id: patientId,
  practitioner_id: practitionerId,
  clinic_id: clinicId,
  carrier_id: CARRIER,
  service_id: SERVICE,
  medication_requests: [
    {
      medication,
      dose: '0.25mg',
      quantity: 1,
      refills: '99',
      direction: 'Inject 0.25 mg once weekly',
      days_supply: 28,
    },
  ],
});

export const refillBody = (orderId) => ({ medication_request_id: orderId });
