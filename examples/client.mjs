// The typed TypeScript client (clients/typescript, @pharmacy/partner-fulfillment-client) from plain
// Node.js (20.19+), against a running development server:
//
//   BASE=http://127.0.0.1:3000 KEY=dev_… CLINIC=… node examples/client.mjs
//
// BASE, KEY and CLINIC are the README's shell variables (what the server printed at its first start).
// `npm install` (or `npm ci`) builds the client into clients/typescript/dist (its `prepare` script),
// so this runs from a fresh clone as written. In a TypeScript project the same calls are typed: the
// paths, the bodies, `data` and the error envelope all come from the partner OpenAPI document.
//
// It creates a practitioner and a patient and prints their ids, then sends a field from an outdated
// example to show the typed error envelope (400 VALIDATION_ERROR and its details).
import process from 'node:process';
import { createPartnerClient } from '@pharmacy/partner-fulfillment-client';

const BASE = process.env.BASE || 'http://127.0.0.1:3000';
const { KEY, CLINIC } = process.env;
if (!KEY || !CLINIC) {
  process.stderr.write('Set KEY and CLINIC to the x-api-key and clinic_id the server printed (README, Quick start).\n');
  process.exit(1);
}

const client = createPartnerClient({ baseUrl: BASE, apiKey: KEY });

const practitioner = await client.POST('/api/external/practitioner', {
  body: {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    npi: '1234567893',
    is_veterinarian: false,
    assigned_clinic: CLINIC,
    address_line_1: '1 Main St',
    city: 'Austin',
    state_code: 'TX',
    zip_code: '78701',
  },
});
if (practitioner.error) {
  // The typed error envelope: error.code, error.message, error.details.
  process.stderr.write(`${practitioner.error.error.code}: ${practitioner.error.error.message}\n`);
  process.exit(1);
}
const practitionerId = practitioner.data.data.practitioner_id;
process.stdout.write(`practitioner_id: ${practitionerId}\n`);

const { data, error } = await client.POST('/api/external/patient', {
  body: {
    first_name: 'Grace',
    last_name: 'Hopper',
    gender: 'female',
    dob: '1980-12-09',
    practitioner_id: practitionerId,
    assigned_clinic: CLINIC,
    contacts: [{ key: 'phone', value: '5551234567' }],
    addresses: [{ addressLine1: '2 Elm St', city: 'Sacramento', state: 'CA', postalCode: '95814' }],
  },
});
if (error) {
  process.stderr.write(`${error.error.code}: ${JSON.stringify(error.error.details)}\n`);
  process.exit(1);
}
process.stdout.write(`patient_id: ${data.data.patient_id}\n`);

// A field name from an outdated example: refused, and the answer names the right one.
const refused = await client.POST('/api/external/practitioner', { body: { npi_number: '1234567893' } });
const { code, details } = refused.error.error;
process.stdout.write(`refused: ${refused.response.status} ${code}: npi_number ${details.npi_number}\n`);
