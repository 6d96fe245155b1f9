import type { ContactPoint, Identifier, Practitioner } from '@medplum/fhirtypes';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { findPractitioner } from '../practitioners/practitioner.repository.js';
import type { PractitionerTable } from '../practitioners/practitioner.tables.js';
import { criterionOf, idCodesOf, ownIdentifier, URI_SYSTEM } from './fhir-page.js';
import { searchPractitioners } from './practitioner.repository.js';
import type { FhirResourceKind } from './fhir-resource.js';
import type { TokenValue } from './fhir-search.js';
import { addressOf } from './patient.fhir.js';
import { FHIR_RESOURCE_SCOPES } from './smart-scopes.js';

/*
 * Practitioner (US Core Practitioner): one of the clinic's prescribers, its NPI under the NPI system.
 * US Core's SHALL searches: `identifier` (an NPI) and `name`.
 */

export const NPI_SYSTEM = 'http://hl7.org/fhir/sid/us-npi';

export const practitionerKind: FhirResourceKind<Practitioner> = {
  type: 'Practitioner',
  scope: FHIR_RESOURCE_SCOPES.Practitioner,
  searchParams: [
    {
      name: '_id',
      type: 'token',
      documentation: 'The practitioner\u2019s id',
      definition: 'http://hl7.org/fhir/SearchParameter/Resource-id',
    },
    {
      name: 'identifier',
      type: 'token',
      documentation: `An NPI (${NPI_SYSTEM}|<npi>), our id (urn:ietf:rfc:3986|urn:uuid:<id>), or either bare`,
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-practitioner-identifier',
    },
    {
      name: 'name',
      type: 'string',
      documentation: 'Starts a first or last name (case-insensitive; :exact and :contains)',
      definition: 'http://hl7.org/fhir/us/core/SearchParameter/us-core-practitioner-name',
    },
  ],
  async read(ctx, clinicId, id) {
    const row = await findPractitioner(ctx.db, clinicId, id);
    return row === undefined ? undefined : { resource: toPractitioner(row), audit: [audited(row)] };
  },
  async search(ctx, clinicId, query, paging) {
    const identifier = criterionOf(query.criteria, 'identifier', 'token');
    const search = {
      ids: idCodesOf(query.criteria),
      identified: identifier && identifiersOf(identifier.values),
      name: criterionOf(query.criteria, 'name', 'string'),
    };
    const page = await searchPractitioners(ctx.db, clinicId, search, paging);
    return { matches: page.rows.map(toPractitioner), total: page.total, hasMore: page.hasMore, audit: page.rows.map(audited) };
  },
};

const audited = (row: PractitionerTable): AuditedResource => ({ type: 'practitioner', id: row.id, clinicId: row.clinic_id });

/** What an identifier token names: NPIs, our ids, or (without a system) either. */
function identifiersOf(tokens: readonly TokenValue[]): { npis: string[]; ids: string[] } {
  const npis: string[] = [];
  const ids: string[] = [];
  for (const token of tokens) {
    const uuid = token.code.startsWith('urn:uuid:') ? token.code.slice('urn:uuid:'.length) : token.code;
    if (token.system === NPI_SYSTEM || token.system === undefined) npis.push(token.code);
    if (token.system === URI_SYSTEM || token.system === undefined) ids.push(uuid);
  }
  return { npis, ids };
}

/** The practitioner as FHIR's Practitioner: NPI and our id, name, email and phone, practice address. */
export function toPractitioner(row: PractitionerTable): Practitioner {
  const identifier: Identifier[] = [{ system: NPI_SYSTEM, value: row.npi }, ownIdentifier(row.id)];
  const telecom: ContactPoint[] = [
    { system: 'email', value: row.email, use: 'work' },
    ...(row.phone ? [{ system: 'phone' as const, value: row.phone, use: 'work' as const }] : []),
  ];
  return {
    resourceType: 'Practitioner',
    id: row.id,
    meta: { profile: ['http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner'] },
    identifier,
    active: row.status === 'active',
    name: [{ use: 'official', family: row.last_name, given: [row.first_name] }],
    telecom,
    address: [{ ...addressOf([row.address_line_1, row.address_line_2], row.city, row.state_code, row.zip_code), use: 'work' }],
  };
}
