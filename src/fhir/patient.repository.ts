import { sql, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { dateMatch, stringMatch, tablePage } from './fhir-page.repository.js';
import type { SearchPaging } from './fhir-resource.js';
import type { SearchCriterion } from './fhir-search.js';

/** A search of the clinic's patients, as FHIR's parameters say it (patient.fhir.ts); absent: not searched on. */
export interface PatientSearch {
  /** `_id`. */
  ids: string[] | undefined;
  /** The ids an `identifier` names in our own system (none: nothing matches). */
  ownIds: string[] | undefined;
  name: Extract<SearchCriterion, { type: 'string' }> | undefined;
  birthdate: Extract<SearchCriterion, { type: 'date' }> | undefined;
  genders: string[] | undefined;
}

/** A keyset page of the clinic's patients a FHIR search selects, with their count. */
export function searchPatients(db: DbOrTrx, clinicId: string, search: PatientSearch, paging: SearchPaging) {
  let base = db.selectFrom('patients').where('clinic_id', '=', clinicId);
  if (search.ids) base = base.where('id', 'in', search.ids);
  if (search.ownIds) {
    // No id in our system: nothing matches (an empty IN is not valid SQL).
    base = search.ownIds.length === 0 ? base.where(sql<SqlBool>`1 = 0`) : base.where('id', 'in', search.ownIds);
  }
  if (search.name) base = base.where(stringMatch(['first_name', 'middle_name', 'last_name'], search.name));
  if (search.birthdate) base = base.where(dateMatch('dob', search.birthdate));
  if (search.genders) base = base.where('gender', 'in', search.genders);
  return tablePage(base, paging);
}
