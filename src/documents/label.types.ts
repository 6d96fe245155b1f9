/**
 * What a prescription label prints (issue 40, item 7; docs/prescriptions.md#the-label). The caller
 * gives text as it should read: the renderer formats dates and lays out, it computes no dose,
 * quantity or date.
 */
import type { Storage } from '../medications/beyond-use.js';
import type { ControlledSchedule } from '../medications/formula.js';
import type { PharmacyIdentity } from '../pharmacy-identity.js';

/** The dispensing pharmacy: PHARMACY_NAME and its address settings, with a phone (required on a label). */
export type DispensingPharmacy = Omit<PharmacyIdentity, 'phone'> & { readonly phone: string };

/**
 * An injectable's dose in every unit a patient may measure it in (FDA's alert on dosing errors
 * with compounded semaglutide: patients drew 5 to 20 times their dose mixing up mL and "units").
 * Given only when the concentration is known.
 */
export interface DoseToShow {
  /** The prescribed dose, e.g. `0.25 mg`. */
  amount: string;
  /** The same dose in millilitres, e.g. `0.1` (printed `0.1 mL`). */
  volume_ml: string;
  /** The same dose in units of a U-100 insulin syringe (100 units = 1 mL), e.g. `10`; null when no such syringe is dispensed. */
  syringe_units: string | null;
}

/** One container of the fill: one label each. */
export interface LabelContainer {
  /** What this container holds, e.g. `{ value: '2', unit: 'mL' }`. */
  quantity: { value: string; unit: string };
  /** The preparation's lot, when the label shows it. */
  lot_number: string | null;
}

export interface LabelInput {
  /** When the label was printed (ISO 8601 instant): the PDF's creation date. Never the wall clock. */
  generated_at: string;
  pharmacy: DispensingPharmacy;
  /** A partner's brand, e.g. `Acme Health`: printed as "Dispensed for …", smaller than the pharmacy's name and under it. */
  partner_brand: string | null;
  rx_number: string;
  /** 0 for the first fill, then 1, 2… for refills. */
  fill_number: number;
  /** The day of this fill (YYYY-MM-DD). */
  fill_date: string;
  patient_name: string;
  prescriber_name: string;
  preparation: {
    /** e.g. `Semaglutide injection`. */
    name: string;
    /** The strength as prescribed, e.g. `5 mg/2 mL`. */
    strength: string;
    /** e.g. `2.5 mg/mL`; null when not meaningful (a capsule's strength says it all). */
    concentration: string | null;
  };
  /** The DEA schedule; null when not controlled. */
  controlled_schedule: ControlledSchedule | null;
  directions: string;
  dose: DoseToShow | null;
  /** The beyond-use date (YYYY-MM-DD) and, when it has one, its time (HH:MM, the pharmacy's time zone). */
  beyond_use: { date: string; time: string | null };
  storage: Storage;
  /** Initials of the pharmacist who verified the fill, e.g. `JD`. */
  pharmacist_initials: string;
  /** At least one; each prints as its own page, "Container 1 of 2"... */
  containers: readonly LabelContainer[];
}
