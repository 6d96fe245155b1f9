import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../src/context.js';
import { patientInsert } from '../../src/patients/patient.repository.js';

/**
 * A patient row of a clinic, written straight through the repository so that shipping tests do
 * not depend on the patient endpoint. `state: null` gives a patient without an address.
 */
export async function insertTestPatient(ctx: AppContext, clinicId: string, state: string | null = 'CA'): Promise<string> {
  const id = randomUUID();
  const insert = patientInsert(
    { statements: ctx.db },
    {
      id,
      clinic_id: clinicId,
      practitioner_id: null,
      first_name: 'Grace',
      middle_name: null,
      last_name: 'Hopper',
      gender: 'female',
      dob: '1980-12-09',
      species: 'human',
      status: 'active',
      contacts: '[]',
      address_line_1: state === null ? null : '2 Elm St',
      address_line_2: null,
      city: state === null ? null : 'Somewhere',
      state,
      postal_code: state === null ? null : '95814',
      created_at: new Date().toISOString(),
    },
  );
  await ctx.db.executeQuery(insert.compile());
  return id;
}
