/** Row types of a clinic's formulary (migration 001). Column conventions: see db/database.ts. */

export interface MedicationTable {
  id: string;
  clinic_id: string;
  name: string;
  /** Lower-cased, trimmed, inner spaces collapsed: the key orders match on. */
  name_key: string;
  strength: string | null;
  dosage_form: string | null;
  created_at: string;
}

export interface MedicationTables {
  medications: MedicationTable;
}
