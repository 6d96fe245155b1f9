/**
 * The fixed wording of a prescription label and when it applies. Pure; the sources are listed in
 * docs/prescriptions.md#the-label.
 */
import type { Storage } from '../medications/beyond-use.js';
import type { ControlledSchedule } from '../medications/formula.js';
import type { DoseToShow } from './label.types.js';

/**
 * The warning 21 CFR 290.5 requires, word for word, on the label of a drug in schedule II, III or
 * IV "when dispensed to or for a patient". (The same words in Spanish are in 21 CFR 290.6.)
 */
export const TRANSFER_CAUTION =
  'Caution: Federal law prohibits the transfer of this drug to any person other than the patient for whom it was prescribed.';

/**
 * Schedules whose label carries TRANSFER_CAUTION: II, III and IV, as 21 CFR 290.5 names them.
 * Schedule V is not named there, so its label does not print a federal prohibition that does not
 * apply to it; a state that requires more adds its schedules here.
 */
const CAUTION_SCHEDULES: ReadonlySet<ControlledSchedule> = new Set<ControlledSchedule>(['II', 'III', 'IV']);

export const needsTransferCaution = (schedule: ControlledSchedule | null): boolean =>
  schedule !== null && CAUTION_SCHEDULES.has(schedule);

/**
 * The statement that the preparation is compounded (USP <795> and <797> ask that the labeling say
 * so; the words are those section 503B of the FD&C Act prescribes for an outsourcing facility's
 * label, the one wording federal law spells out).
 */
export const COMPOUNDED_STATEMENT = 'This is a compounded drug.';

/**
 * How each storage reads on a label: the ranges USP <659> "Packaging and Storage Requirements"
 * gives a controlled room temperature, a refrigerator and a freezer.
 */
export const STORAGE_TEXT: Readonly<Record<Storage, string>> = {
  room: 'Store at room temperature, 20-25 °C (68-77 °F).',
  refrigerated: 'Refrigerate at 2-8 °C (36-46 °F). Do not freeze.',
  frozen: 'Keep frozen, -25 to -10 °C (-13 to 14 °F).',
};

/** The dose line: `DOSE: 0.25 mg = 0.1 mL = 10 units (U-100 syringe)`. */
export function doseLine(dose: DoseToShow): string {
  const units = dose.syringe_units === null ? '' : ` = ${dose.syringe_units} units (U-100 syringe)`;
  return `DOSE: ${dose.amount} = ${dose.volume_ml} mL${units}`;
}

/** `Semaglutide injection 5 mg/2 mL (2.5 mg/mL)`. */
export function preparationLine(preparation: { name: string; strength: string; concentration: string | null }): string {
  const concentration = preparation.concentration === null ? '' : ` (${preparation.concentration})`;
  return `${preparation.name} ${preparation.strength}${concentration}`;
}
