/**
 * What the compounding record of a fill prints (issue 40, item 7; USP <795> and <797>, "Compounding
 * records"). Text as it should read; instants are formatted in `time_zone`.
 */
import type { Preparation, Storage } from '../medications/beyond-use.js';
import type { PharmacyIdentity } from '../pharmacy-identity.js';

/** One ingredient as used: its lot, the lot's expiry (YYYY-MM-DD) and the quantity weighed or measured. */
export interface RecordIngredient {
  name: string;
  lot_number: string;
  expires_on: string;
  /** e.g. `{ value: '10', unit: 'mg' }`. */
  quantity: { value: string; unit: string };
  /** The supplier or manufacturer, when recorded. */
  supplier: string | null;
}

/** A person's step: who and when (ISO 8601 instant). */
export interface SignedStep {
  name: string;
  at: string;
}

/**
 * Why the beyond-use date is what it is:
 * - `standard`: the chapter's table (USP <795> for non-sterile, USP <797> for sterile), with the
 *   row applied (e.g. `Table 4, aqueous, preserved`) and its days;
 * - `entry_days`: the formulary entry's own, shorter days (a stability study, a monograph);
 * - `ingredient_lot`: an ingredient lot expiring before either, which then limits the date.
 */
export type BudBasis =
  | { kind: 'standard'; standard: 'USP <795>' | 'USP <797>'; row: string; days: number }
  | { kind: 'entry_days'; days: number }
  | { kind: 'ingredient_lot'; ingredient: string; lot_number: string; expires_on: string };

export interface CompoundingRecordInput {
  /** When the record was printed (ISO 8601 instant): the PDF's creation date. */
  generated_at: string;
  /** The pharmacy's time zone (IANA), in which every instant is written. */
  time_zone: string;
  pharmacy: PharmacyIdentity;
  rx_number: string;
  fill_number: number;
  patient_name: string;
  prescriber_name: string;
  formula: { name: string; version: string; preparation: Preparation };
  /** The preparation's lot. */
  lot_number: string;
  /** What was made, e.g. `{ value: '2', unit: 'mL' }`. */
  quantity: { value: string; unit: string };
  ingredients: readonly RecordIngredient[];
  compounded: SignedStep;
  /** The pharmacist's verification; null until it is done (the record then says so). */
  checked: SignedStep | null;
  beyond_use: { date: string; time: string | null; basis: BudBasis };
  storage: Storage;
}
