import type { Medication } from '@medplum/fhirtypes';
import type { FhirResourceKind } from './fhir-resource.js';
import { tokenCodes } from './criteria-values.js';
import { loadMedications, uniqueReads } from './medication-resources.js';
import { countMedications, pageMedicationIds, type MedicationFilter } from './medication.repository.js';
import { FHIR_RESOURCE_SCOPES } from './smart-scopes.js';

/**
 * FHIR Medication (issue 32): a clinic's formulary entries and its items' fills, read by id (an
 * entry's id or a fill's id: both are tried, within the clinic) and searched by `_id`. A page costs
 * five queries whatever its size: its ids, the count, then the entries, the fills and their lots.
 *
 * Reading an entry is audited as a read of the medication; reading a fill as a read of its order
 * (the fill is part of the patient's order: PHI).
 */
export const medicationKind: FhirResourceKind<Medication> = {
  type: 'Medication',
  scope: FHIR_RESOURCE_SCOPES.Medication,
  searchParams: [
    {
      name: '_id',
      type: 'token',
      documentation:
        'The Medication\u2019s id: a formulary entry\u2019s id, or a fill\u2019s id (the Medication a MedicationRequest refers to once filled).',
      definition: 'http://hl7.org/fhir/SearchParameter/Resource-id',
    },
  ],

  async read(ctx, clinicId, id) {
    const loaded = (await loadMedications(ctx.db, clinicId, { entries: [id], fills: [id] })).get(id);
    return loaded === undefined ? undefined : { resource: loaded.resource, audit: [loaded.audit] };
  },

  async search(ctx, clinicId, query, paging) {
    const filter: MedicationFilter = { ids: tokenCodes(query, '_id') };
    const [rows, total] = await Promise.all([
      pageMedicationIds(ctx.db, clinicId, filter, { afterId: paging.afterId, limit: paging.count + 1 }),
      countMedications(ctx.db, clinicId, filter),
    ]);
    const page = rows.slice(0, paging.count);
    const loaded = await loadMedications(ctx.db, clinicId, {
      entries: page.filter((row) => row.source === 'entry').map((row) => row.id),
      fills: page.filter((row) => row.source === 'fill').map((row) => row.id),
    });
    const found = page.flatMap((row) => {
      const each = loaded.get(row.id);
      return each === undefined ? [] : [each];
    });
    return {
      matches: found.map((each) => each.resource),
      total,
      hasMore: rows.length > paging.count,
      audit: uniqueReads(found.map((each) => each.audit)),
    };
  },
};
