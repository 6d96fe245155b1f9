/** Row types of the patients feature (migration 001). Column conventions: see db/database.ts. */

export interface PatientTable {
  id: string;
  clinic_id: string;
  practitioner_id: string | null;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  gender: string;
  dob: string;
  species: string;
  status: string;
  /** JSON array of `{key, value}`. */
  contacts: string;
  address_line_1: string | null;
  address_line_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  created_at: string;
  /** Migration 024: JSON `[{substance, reaction, severity}]`; null when never given. */
  allergies?: string | null;
  /** Migration 024: 1 when the prescriber recorded no known allergies; null when never said. */
  no_known_allergies?: number | null;
}

/**
 * An allergy class of the operator's (migration 035; src/patients/allergy-classes.ts): merged over
 * the documented defaults by `code`. `names` and `members`: JSON arrays of text.
 */
export interface AllergyClassTable {
  code: string;
  label: string;
  names: string;
  members: string;
  updated_at: string;
}

export interface PatientTables {
  patients: PatientTable;
  allergy_classes: AllergyClassTable;
}
