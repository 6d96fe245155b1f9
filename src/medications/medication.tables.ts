/** Row types of a clinic's formulary (migrations 001, 022). Column conventions: see db/database.ts. */

export interface MedicationTable {
  id: string;
  clinic_id: string;
  name: string;
  /** Lower-cased, trimmed, inner spaces collapsed: the key orders match on. */
  name_key: string;
  strength: string | null;
  dosage_form: string | null;
  created_at: string;
  /** The formula (migration 022): every column null for an entry without one. JSON `[{name, strength, unit, active}]`. */
  ingredients: string | null;
  preparation: string | null;
  bud_category: string | null;
  storage: string | null;
  controlled_schedule: string | null;
  beyond_use_days: number | null;
  /** JSON array of upper-case two-letter state codes. */
  restricted_states: string | null;
}

export interface MedicationTables {
  medications: MedicationTable;
}
