import { sql, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { stringMatch, tablePage } from './fhir-page.repository.js';
import type { SearchPaging } from './fhir-resource.js';
import type { SearchCriterion } from './fhir-search.js';

/** A search of the clinic's practitioners, as FHIR's parameters say it (practitioner.fhir.ts); absent: not searched on. */
export interface PractitionerSearch {
  /** `_id`. */
  ids: string[] | undefined;
  /** What an `identifier` names: NPIs and our ids (neither: nothing matches). */
  identified: { npis: string[]; ids: string[] } | undefined;
  name: Extract<SearchCriterion, { type: 'string' }> | undefined;
}

/** A keyset page of the clinic's practitioners a FHIR search selects, with their count. */
export function searchPractitioners(db: DbOrTrx, clinicId: string, search: PractitionerSearch, paging: SearchPaging) {
  let base = db.selectFrom('practitioners').where('clinic_id', '=', clinicId);
  if (search.ids) base = base.where('id', 'in', search.ids);
  const named = search.identified;
  if (named) {
    base = base.where((eb) =>
      eb.or([
        ...(named.npis.length > 0 ? [eb('npi', 'in', named.npis)] : []),
        ...(named.ids.length > 0 ? [eb('id', 'in', named.ids)] : []),
        // Another system only: nothing matches.
        sql<SqlBool>`1 = 0`,
      ]),
    );
  }
  if (search.name) base = base.where(stringMatch(['first_name', 'last_name'], search.name));
  return tablePage(base, paging);
}
