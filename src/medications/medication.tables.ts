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
  /**
   * A sterile entry's USP <797> condition (migration 030; medications/sterile-condition.ts): category
   * 1 to 3, `aseptic` or `terminally_sterilized`, 0/1 flags; all null for an entry that is not sterile.
   * `sterile_defaulted` 1: the entry gave none and takes the most conservative Category 2 row.
   */
  sterile_category: number | null;
  sterile_preparation: string | null;
  sterile_nonsterile_component: number | null;
  sterile_tested: number | null;
  sterile_defaulted: number | null;
  /** The unit the entry is dispensed in (migration 030; medications/dispense-unit.ts); null: `each`. */
  dispense_unit: string | null;
  /** The therapeutic class duplicate therapy compares (migration 030), e.g. `glp1_receptor_agonist`. */
  therapeutic_class: string | null;
  /** The formula's version (migration 030): 0 without a formula, 1 for the first, one more at each change. */
  formula_version: number;
}

/** Each version of an entry's formula as it was (migration 030): a fill names the one it was made from. */
export interface FormulaVersionTable {
  id: string;
  clinic_id: string;
  medication_id: string;
  version: number;
  /** The formula's fields as the API showed them then (JSON). */
  formula: string;
  created_at: string;
  /** Who made the change: a staff member's or the operator's name, null for the sandbox's seed. */
  created_by: string | null;
}

export interface MedicationTables {
  medications: MedicationTable;
  formula_versions: FormulaVersionTable;
}
