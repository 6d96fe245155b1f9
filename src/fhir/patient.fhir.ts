import type { Address, ContactPoint, Patient } from '@medplum/fhirtypes';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { findPatient } from '../patients/patient.repository.js';
import type { PatientTable } from '../patients/patient.tables.js';
import { criterionOf, idCodesOf, ownIdentifier, ownIdsOf } from './fhir-page.js';
import { searchPatients } from './patient.repository.js';
import type { FhirResourceKind } from './fhir-resource.js';
import { FHIR_RESOURCE_SCOPES } from './smart-scopes.js';

/*
 * Patient (US Core Patient): one of the clinic's patients. US Core's SHALL searches: `_id`,
 * `identifier`, `name`, `birthdate`+`name`, `gender`+`name` (each also alone or with the others).
 */

const GENDERS = ['male', 'female', 'other', 'unknown'] as const;
/** The animal a veterinary patient is (FHIR R4's patient-animal extension; US Core is for people). */
const ANIMAL_EXTENSION = 'http://hl7.org/fhir/StructureDefinition/patient-animal';

export const patientKind: FhirResourceKind<Patient> = {
  type: 'Patient',
  scope: FHIR_RESOURCE_SCOPES.Patient,
  searchParams: [
    {
      name: '_id',
      type: 'token',
      documentation: 'The patient\u2019s id',
      definition: 'http://hl7.org/fhir/SearchParameter/Resource-id',
    },
    {
      name: 'identifier',
      type: 'token',
      documentation: 'Our id, as urn:ietf:rfc:3986|urn:uuid:<id> or the bare id',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-patient-identifier',
    },
    {
      name: 'name',
      type: 'string',
      documentation: 'Starts a first, middle or last name (case-insensitive; :exact and :contains)',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-patient-name',
    },
    {
      name: 'birthdate',
      type: 'date',
      documentation: 'The date of birth (YYYY, YYYY-MM or YYYY-MM-DD, with eq, ne, lt, gt, le or ge)',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-patient-birthdate',
    },
    {
      name: 'gender',
      type: 'token',
      documentation: 'male, female, other or unknown',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-patient-gender',
      codes: GENDERS,
    },
  ],
  async read(ctx, clinicId, id) {
    const row = await findPatient(ctx.db, clinicId, id);
    return row === undefined ? undefined : { resource: toPatient(row), audit: [audited(row)] };
  },
  async search(ctx, clinicId, query, paging) {
    const identifier = criterionOf(query.criteria, 'identifier', 'token');
    const search = {
      ids: idCodesOf(query.criteria),
      ownIds: identifier && ownIdsOf(identifier.values),
      name: criterionOf(query.criteria, 'name', 'string'),
      birthdate: criterionOf(query.criteria, 'birthdate', 'date'),
      genders: criterionOf(query.criteria, 'gender', 'token')?.values.map((token) => token.code),
    };
    const page = await searchPatients(ctx.db, clinicId, search, paging);
    return { matches: page.rows.map(toPatient), total: page.total, hasMore: page.hasMore, audit: page.rows.map(audited) };
  },
};

const audited = (row: PatientTable): AuditedResource => ({ type: 'patient', id: row.id, clinicId: row.clinic_id });

/** The patient as FHIR's Patient: our id, names, gender, birth date, contacts and address. */
export function toPatient(row: PatientTable): Patient {
  const given = [row.first_name, ...(row.middle_name ? [row.middle_name] : [])];
  const telecom = contactsOf(row.contacts);
  return {
    resourceType: 'Patient',
    id: row.id,
    meta: { profile: ['http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient'] },
    ...(row.species !== 'human'
      ? { extension: [{ url: ANIMAL_EXTENSION, extension: [{ url: 'species', valueCodeableConcept: { text: row.species } }] }] }
      : {}),
    identifier: [ownIdentifier(row.id)],
    active: row.status === 'active',
    name: [{ use: 'official', family: row.last_name, given }],
    ...(telecom.length > 0 ? { telecom } : {}),
    gender: (GENDERS as readonly string[]).includes(row.gender) ? (row.gender as Patient['gender']) : 'unknown',
    birthDate: row.dob,
    ...(row.address_line_1 && row.city && row.state
      ? { address: [addressOf([row.address_line_1, row.address_line_2], row.city, row.state, row.postal_code)] }
      : {}),
  };
}

/** A US postal address (lines without blanks). */
export function addressOf(lines: readonly (string | null)[], city: string, state: string, postalCode: string | null): Address {
  return {
    use: 'home',
    line: lines.filter((line): line is string => line !== null && line.trim() !== ''),
    city,
    state,
    ...(postalCode ? { postalCode } : {}),
    country: 'US',
  };
}

/** Our contacts (`[{key, value}]`, keys email, phone, url, sms, fax) as ContactPoints (the same words). */
function contactsOf(stored: string): ContactPoint[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((contact: unknown) => {
    const { key, value } = (contact ?? {}) as { key?: unknown; value?: unknown };
    if (typeof key !== 'string' || typeof value !== 'string' || !['email', 'phone', 'url', 'sms', 'fax'].includes(key)) return [];
    return [{ system: key as ContactPoint['system'], value }];
  });
}
