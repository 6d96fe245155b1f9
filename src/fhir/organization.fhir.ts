import type { Organization } from '@medplum/fhirtypes';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { findClinic } from '../clinics/clinic.repository.js';
import type { ClinicTable } from '../clinics/clinic.tables.js';
import { idCodesOf, ownIdentifier } from './fhir-page.js';
import type { FhirResourceKind } from './fhir-resource.js';
import { FHIR_RESOURCE_SCOPES } from './smart-scopes.js';

/*
 * Organization: the caller's own clinic (the practice its practitioners and patients belong to).
 * A caller reads only its own: another clinic's id is not found, and a search finds at most one.
 */

export const organizationKind: FhirResourceKind<Organization> = {
  type: 'Organization',
  scope: FHIR_RESOURCE_SCOPES.Organization,
  searchParams: [
    {
      name: '_id',
      type: 'token',
      documentation: 'The clinic\u2019s id',
      definition: 'http://hl7.org/fhir/SearchParameter/Resource-id',
    },
  ],
  async read(ctx, clinicId, id) {
    if (id !== clinicId) return undefined;
    const row = await findClinic(ctx.db, clinicId);
    return row === undefined ? undefined : { resource: toOrganization(row), audit: [audited(row)] };
  },
  async search(ctx, clinicId, query, paging) {
    const ids = idCodesOf(query.criteria);
    const named = ids === undefined || ids.includes(clinicId);
    const after = paging.afterId !== null && paging.afterId >= clinicId;
    const row = named ? await findClinic(ctx.db, clinicId) : undefined;
    const rows = row === undefined ? [] : [row];
    return {
      matches: after ? [] : rows.map(toOrganization),
      total: rows.length,
      hasMore: false,
      audit: after ? [] : rows.map(audited),
    };
  },
};

const audited = (row: ClinicTable): AuditedResource => ({ type: 'clinic', id: row.id, clinicId: row.id });

export function toOrganization(row: ClinicTable): Organization {
  return {
    resourceType: 'Organization',
    id: row.id,
    identifier: [ownIdentifier(row.id)],
    active: true,
    name: row.name,
  };
}
