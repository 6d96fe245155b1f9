import { notFoundIn } from '../audit/denied-access.js';
import { newId } from '../shared/ids.js';
import { assertClinicScope } from '../clinics/clinic.service.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { AuditedReadContext, ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { PatientTable } from './patient.tables.js';
import { isoNow } from '../clock.js';
import { blankToNull } from '../shared/text.js';
import { fieldError } from '../errors.js';
import { findPractitionerOfClinic } from '../practitioners/practitioner.service.js';
import { dobProblem } from '../reference/calendar-date.js';
import * as repo from './patient.repository.js';
import {
  PHONE_KEYS,
  type AllergiesInput,
  type ContactKey,
  type PatientCreateInput,
  type PatientRecord,
} from './patient.schemas.js';
import { allergiesOf, allergyColumns } from './allergies.js';
import { normalizeUsPhone } from '../reference/us-phone.js';

interface Contact {
  key: ContactKey;
  value: string;
}

/**
 * Registers a patient of the key's clinic (spec: POST /api/external/patient). The body has passed
 * its schema (required fields, enums, one complete address, contacts); this adds the clinic scope,
 * a date of birth that is not in the future, and a practitioner of the same clinic.
 */
export async function createPatient(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  input: PatientCreateInput,
  audit: AuditContext,
): Promise<{ patient_id: string }> {
  await assertClinicScope(ctx, identity, input.assigned_clinic, 'assigned_clinic');

  const dobIssue = dobProblem(input.dob, ctx.clock());
  if (dobIssue !== undefined) throw fieldError('dob', dobIssue);
  // The schema requires exactly one address; the guard only tells the type checker.
  const address = input.addresses[0];
  if (address === undefined) throw fieldError('addresses', 'must have exactly 1 item');

  const allergies = allergyColumns(input);
  const practitionerId = input.practitioner_id ?? null;
  if (practitionerId !== null && !(await findPractitionerOfClinic(ctx, identity.clinicId, practitionerId))) {
    // Unknown and other clinics' practitioners look the same: no leak of another clinic's data.
    throw notFoundIn({ type: 'practitioner', id: practitionerId }, 'Practitioner not found', {
      practitioner_id: 'practitioner not found',
    });
  }

  // Phone numbers in one form whatever their layout (`5551234567` → `555-123-4567`); the schema checked them.
  const contacts: Contact[] = (input.contacts ?? []).map((c) => ({
    key: c.key,
    value: PHONE_KEYS.includes(c.key) ? normalizeUsPhone(c.value) : c.value.trim(),
  }));
  const row: PatientTable = {
    id: newId(),
    clinic_id: identity.clinicId,
    practitioner_id: practitionerId,
    first_name: input.first_name.trim(),
    middle_name: blankToNull(input.middle_name),
    last_name: input.last_name.trim(),
    gender: input.gender,
    dob: input.dob,
    species: input.species ?? 'human',
    status: input.status ?? 'active',
    contacts: JSON.stringify(contacts),
    address_line_1: address.addressLine1.trim(),
    address_line_2: blankToNull(address.addressLine2),
    city: address.city.trim(),
    state: address.state.toUpperCase(),
    postal_code: address.postalCode,
    created_at: isoNow(ctx.clock),
    ...allergies,
  };
  await runChange(ctx, audit, (change) => {
    change.write(repo.patientInsert(change, row));
    change.audit('create', { type: 'patient', id: row.id, clinicId: row.clinic_id });
  });
  return { patient_id: row.id };
}

/** A patient of the key's clinic; another clinic's is not found (404), like an unknown id. Audited as a read. */
export async function getPatient(
  ctx: AuditedReadContext,
  identity: PartnerIdentity,
  patientId: string,
  audit: AuditContext,
): Promise<PatientRecord> {
  const row = await repo.findPatient(ctx.db, identity.clinicId, patientId);
  if (!row) throw notFoundIn({ type: 'patient', id: patientId }, 'Patient not found');
  await ctx.audit.recordReads(audit, [{ type: 'patient', id: row.id, clinicId: row.clinic_id }]);
  return toRecord(row);
}

/**
 * PUT /api/external/patient/{patientId}/allergies: replaces the patient's allergies and "no known
 * allergies" with the body's (400 naming `no_known_allergies` when it is true beside a non-empty
 * list). Another clinic's patient is not found (404). Audited as an update of the patient.
 */
export async function replaceAllergies(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  patientId: string,
  input: AllergiesInput,
  audit: AuditContext,
): Promise<PatientRecord> {
  const columns = allergyColumns({ allergies: input.allergies, no_known_allergies: input.no_known_allergies ?? false });
  const row = await repo.findPatient(ctx.db, identity.clinicId, patientId);
  if (!row) throw notFoundIn({ type: 'patient', id: patientId }, 'Patient not found');
  await runChange(ctx, audit, (change) => {
    change.write(repo.allergiesUpdate(change, row.clinic_id, row.id, columns));
    change.audit('update', { type: 'patient', id: row.id, clinicId: row.clinic_id });
  });
  return toRecord({ ...row, ...columns });
}

function toRecord(row: PatientTable): PatientRecord {
  const addresses =
    row.address_line_1 !== null && row.city !== null && row.state !== null && row.postal_code !== null
      ? [
          {
            addressLine1: row.address_line_1,
            addressLine2: row.address_line_2,
            city: row.city,
            state: row.state,
            postalCode: row.postal_code,
          },
        ]
      : [];
  return {
    patient_id: row.id,
    first_name: row.first_name,
    middle_name: row.middle_name,
    last_name: row.last_name,
    gender: row.gender,
    dob: row.dob,
    species: row.species,
    status: row.status,
    practitioner_id: row.practitioner_id,
    assigned_clinic: row.clinic_id,
    contacts: JSON.parse(row.contacts) as Contact[],
    addresses,
    allergies: allergiesOf(row),
    no_known_allergies: row.no_known_allergies === 1,
    created_at: row.created_at,
  };
}
