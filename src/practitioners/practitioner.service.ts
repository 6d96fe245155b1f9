import { notFoundIn } from '../audit/denied-access.js';
import { newId } from '../shared/ids.js';
import { assertClinicScope } from '../clinics/clinic.service.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { AuditedReadContext, ReadContext, ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { PractitionerTable } from './practitioner.tables.js';
import { isoNow } from '../clock.js';
import { blankToNull } from '../shared/text.js';
import { fromFlag, toFlag } from '../db/columns.js';
import { invalidFields, type ErrorDetails } from '../errors.js';
import { isValidNpi } from './npi.js';
import { credentialColumns, credentialsOf } from './credentials.js';
import { normalizeUsPhone } from '../reference/us-phone.js';
import * as repo from './practitioner.repository.js';
import type { PractitionerCreateInput, PractitionerCredentialsInput, PractitionerRecord } from './practitioner.schemas.js';

/** A new practitioner is active at once: onboarding and verification happen outside this API. */
const INITIAL_STATUS = 'active';

/**
 * Registers a practitioner of the key's clinic (spec: POST /api/external/practitioner).
 * The body has passed its schema; this adds the rules a schema cannot say: the clinic scope, and a
 * real NPI for a human practitioner (a veterinarian's identifier is free-form).
 */
export async function createPractitioner(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  input: PractitionerCreateInput,
  audit: AuditContext,
): Promise<{ practitioner_id: string }> {
  await assertClinicScope(ctx, identity, input.assigned_clinic, 'assigned_clinic');

  const npi = input.npi.trim();
  const problems: ErrorDetails = {};
  if (!input.is_veterinarian && !isValidNpi(npi)) {
    problems.npi = 'must be a 10-digit NPI with a valid check digit (a veterinarian sets is_veterinarian to true)';
  }
  const credentials = credentialColumns(input);
  Object.assign(problems, credentials.problems);
  if (Object.keys(problems).length > 0 || !credentials.columns) throw invalidFields(problems);

  const row: PractitionerTable = {
    id: newId(),
    clinic_id: identity.clinicId,
    first_name: input.first_name.trim(),
    last_name: input.last_name.trim(),
    email: input.email,
    npi,
    is_veterinarian: toFlag(input.is_veterinarian),
    // One form whatever the layout sent (`1234567890` → `123-456-7890`); the schema checked it.
    phone: input.phone === undefined ? null : normalizeUsPhone(input.phone),
    address_line_1: input.address_line_1.trim(),
    address_line_2: blankToNull(input.address_line_2),
    city: input.city.trim(),
    // The schema admits only known codes, in any case; they are stored upper case.
    state_code: input.state_code.toUpperCase(),
    zip_code: input.zip_code,
    status: INITIAL_STATUS,
    created_at: isoNow(ctx.clock),
    ...credentials.columns,
  };
  await runChange(ctx, audit, (change) => {
    change.write(repo.practitionerInsert(change, row));
    change.audit('create', { type: 'practitioner', id: row.id, clinicId: row.clinic_id });
  });
  return { practitioner_id: row.id };
}

/** A practitioner of the key's clinic; another clinic's is not found (404), like an unknown id. Audited as a read. */
export async function getPractitioner(
  ctx: AuditedReadContext,
  identity: PartnerIdentity,
  practitionerId: string,
  audit: AuditContext,
): Promise<PractitionerRecord> {
  const row = await repo.findPractitioner(ctx.db, identity.clinicId, practitionerId);
  if (!row) throw notFoundIn({ type: 'practitioner', id: practitionerId }, 'Practitioner not found');
  await ctx.audit.recordReads(audit, [{ type: 'practitioner', id: row.id, clinicId: row.clinic_id }]);
  return toRecord(row);
}

/**
 * PUT /api/external/practitioner/{id}/credentials: replaces the DEA number and the state licences
 * of a practitioner of the key's clinic (another clinic's is not found), in one change audited as an
 * `update` of the practitioner. A bad DEA number is a 400 naming `dea_number` and nothing is written.
 */
export async function updateCredentials(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  practitionerId: string,
  input: PractitionerCredentialsInput,
  audit: AuditContext,
): Promise<PractitionerRecord> {
  const credentials = credentialColumns(input);
  if (!credentials.columns) throw invalidFields(credentials.problems);
  const columns = credentials.columns;
  const clinicId = identity.clinicId;
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const row = (await repo.updateCredentials(trx, clinicId, practitionerId, columns))
      ? await repo.findPractitioner(trx, clinicId, practitionerId)
      : undefined;
    if (!row) throw notFoundIn({ type: 'practitioner', id: practitionerId }, 'Practitioner not found');
    change.audit('update', { type: 'practitioner', id: row.id, clinicId });
    return toRecord(row);
  });
}

/**
 * The clinic's practitioner as stored, for the use cases of other features (a patient's
 * practitioner, a medication request's prescriber); undefined for an unknown id or another clinic's.
 */
export async function findPractitionerOfClinic(
  ctx: ReadContext,
  clinicId: string,
  practitionerId: string,
): Promise<PractitionerTable | undefined> {
  return repo.findPractitioner(ctx.db, clinicId, practitionerId);
}

function toRecord(row: PractitionerTable): PractitionerRecord {
  return {
    practitioner_id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    npi: row.npi,
    is_veterinarian: fromFlag(row.is_veterinarian),
    assigned_clinic: row.clinic_id,
    phone: row.phone,
    address_line_1: row.address_line_1,
    address_line_2: row.address_line_2,
    city: row.city,
    state_code: row.state_code,
    zip_code: row.zip_code,
    status: row.status,
    created_at: row.created_at,
    ...credentialsOf(row),
  };
}
