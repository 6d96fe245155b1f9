/**
 * The units a formulary entry is dispensed in, what an order's `quantity` counts (issue 39, item 9;
 * docs/compounding.md#quantities-and-their-unit). An order's `unit_of_measure` is never taken from
 * its dose: a dose says how much the patient takes (`0.25 mg`), the quantity how much is dispensed
 * (`2 mL`). When a partner leaves the unit out, it is the entry's; an entry without one dispenses
 * `each`, and its read says the unit was not set. Pure.
 */
export const DISPENSE_UNITS = [
  'mL',
  'g',
  'capsule',
  'tablet',
  'troche',
  'suppository',
  'syringe',
  'vial',
  'pen',
  'patch',
  'packet',
  'each',
] as const;
export type DispenseUnit = (typeof DISPENSE_UNITS)[number];

/** The unit of an entry without one. */
export const DEFAULT_DISPENSE_UNIT: DispenseUnit = 'each';

/** An entry's unit, and whether it was set or defaulted. */
export const dispenseUnitOf = (entry: { dispense_unit: string | null }): { unit: string; defaulted: boolean } =>
  entry.dispense_unit === null
    ? { unit: DEFAULT_DISPENSE_UNIT, defaulted: true }
    : { unit: entry.dispense_unit, defaulted: false };

/**
 * Therapeutic classes duplicate therapy compares (issue 39, item 6): a documented list the console
 * offers; an entry may name another class written the same way (lower-case words joined by `_`).
 */
export const KNOWN_THERAPEUTIC_CLASSES = [
  'glp1_receptor_agonist',
  'testosterone',
  'estrogen',
  'progestin',
  'thyroid_hormone',
  'opioid_antagonist',
  'pde5_inhibitor',
  'peptide_growth_hormone_secretagogue',
] as const;

/** The form of a therapeutic class. */
export const THERAPEUTIC_CLASS_PATTERN = '^[a-z][a-z0-9]*(_[a-z0-9]+)*$';
