/**
 * The request examples of the reference page ("Try it out"), keyed by operationId: values the
 * sandbox accepts (the seeded formulary, carriers and services). Replace the ids below with your
 * own: the sandbox clinic's id is printed at the first development start, the others are returned
 * by the calls that create them. test/http/openapi-examples.test.ts sends each one.
 */
export const EXAMPLE_IDS = {
  clinic: '3f6c1b9e-2a4d-4c8e-9b1f-7d2e5a8c0b14',
  practitioner: '8a1d4f7c-5e2b-4b9a-a3c6-1f0e9d8b7c62',
  patient: 'c2e7a9b4-6d1f-4e3a-8b5c-9a0f1e2d3c47',
  order: 'e3052cba-1131-4d21-b7a8-30febffdfdfa',
  webhook: '6b9e2c4a-8f1d-4a7e-b3c5-2d0f9e8a1b73',
} as const;

export const REQUEST_EXAMPLES: Record<string, Record<string, unknown>> = {
  createPractitioner: {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada.lovelace@example.com',
    npi: '1234567893',
    is_veterinarian: false,
    assigned_clinic: EXAMPLE_IDS.clinic,
    phone: '512-555-0100',
    address_line_1: '1 Main St',
    city: 'Austin',
    state_code: 'TX',
    zip_code: '78701',
    dea_number: 'BL1234563',
    licenses: [{ state_code: 'TX', number: 'A123456', expires_on: '2030-06-30' }],
  },
  updatePractitionerCredentials: {
    dea_number: 'BL1234563',
    licenses: [
      { state_code: 'TX', number: 'A123456', expires_on: '2030-06-30' },
      { state_code: 'CA', number: 'G98765', expires_on: '2029-01-31' },
    ],
  },
  createPatient: {
    first_name: 'Grace',
    last_name: 'Hopper',
    gender: 'female',
    dob: '1980-12-09',
    species: 'human',
    status: 'active',
    assigned_clinic: EXAMPLE_IDS.clinic,
    practitioner_id: EXAMPLE_IDS.practitioner,
    contacts: [
      { key: 'email', value: 'grace.hopper@example.com' },
      { key: 'phone', value: '916-555-0101' },
    ],
    addresses: [{ addressLine1: '2 Elm St', addressLine2: 'Apt 3', city: 'Sacramento', state: 'CA', postalCode: '95814' }],
    allergies: [{ substance: 'Penicillin', reaction: 'hives', severity: 'moderate' }],
  },
  replacePatientAllergies: {
    allergies: [
      { substance: 'Penicillin', reaction: 'hives', severity: 'moderate' },
      { substance: 'Naltrexone', reaction: 'nausea', severity: 'mild' },
    ],
    no_known_allergies: false,
  },
  createMedicationOrder: {
    clinic_id: EXAMPLE_IDS.clinic,
    patient_id: EXAMPLE_IDS.patient,
    practitioner_id: EXAMPLE_IDS.practitioner,
    carrier_id: 'fedex',
    service_id: 'fedex_ground',
    signature_required: true,
    saturday_delivery: false,
    medication_requests: [
      {
        medication: 'Semaglutide',
        dose: '0.25mg',
        quantity: 1,
        refills: '2',
        direction: 'Inject 0.25 mg subcutaneously once weekly',
        days_supply: 28,
      },
    ],
  },
  createRefillRequest: { medication_request_id: EXAMPLE_IDS.order },
  advanceSandboxMedicationOrder: { to: 'shipped' },
  recordSandboxShipmentEvent: {
    status: 'out_for_delivery',
    occurred_at: '2026-11-27T09:15:00Z',
    location: 'Sacramento, CA',
    description: 'Out for delivery',
    estimated_delivery_date: '2026-11-27',
  },
  holdSandboxMedicationOrder: { reason_code: 'address_undeliverable' },
  resumeSandboxMedicationOrder: { message: 'Stock arrived.' },
  answerMedicationOrderHold: {
    message: 'The patient confirmed a new address.',
    address: { addressLine1: '20 Elm St', addressLine2: 'Apt 3', city: 'Sacramento', state: 'CA', postalCode: '95814' },
  },
  createWebhook: { clinic_id: EXAMPLE_IDS.clinic, webhook_url: 'https://partner.example.com/webhooks/fulfillment' },
  updateWebhookById: { max_in_flight: 5, max_per_second: 20, event_types: ['order.fulfilled', 'order.delivered'] },
  rotateWebhookSecret: { previous_valid_hours: 24 },
  deleteWebhook: { clinic_id: EXAMPLE_IDS.clinic, webhook_id: EXAMPLE_IDS.webhook },
  testWebhook: { clinic_id: EXAMPLE_IDS.clinic, webhook_id: EXAMPLE_IDS.webhook },
  recoverWebhook: { clinic_id: EXAMPLE_IDS.clinic, webhook_id: EXAMPLE_IDS.webhook, since: '2026-11-22T08:00:00Z' },
};
