import type { Duration, Quantity, Ratio } from '@medplum/fhirtypes';

/*
 * Our units of measure as FHIR Quantities (FHIR R4 §2.24.0.57, Quantity; US Core asks for UCUM where
 * a unit has a UCUM code). A unit we can map safely carries `system` http://unitsofmeasure.org and
 * its UCUM `code`; any other (`units`, `tablets`, `clicks`) keeps its text in `unit` only, since a
 * guessed code would say something the prescriber did not (`units` is not UCUM's enzyme `U`). Pure.
 */

export const UCUM = 'http://unitsofmeasure.org';

/** Spellings of units (lower case, dots removed) → UCUM's case-sensitive codes. */
const UCUM_CODES: Readonly<Record<string, string>> = {
  mg: 'mg',
  milligram: 'mg',
  milligrams: 'mg',
  mcg: 'ug',
  ug: 'ug',
  µg: 'ug',
  μg: 'ug',
  microgram: 'ug',
  micrograms: 'ug',
  g: 'g',
  gm: 'g',
  gram: 'g',
  grams: 'g',
  kg: 'kg',
  ml: 'mL',
  milliliter: 'mL',
  milliliters: 'mL',
  millilitre: 'mL',
  millilitres: 'mL',
  l: 'L',
  liter: 'L',
  liters: 'L',
  litre: 'L',
  litres: 'L',
  iu: '[IU]',
  meq: 'meq',
  '%': '%',
};

const codeOfWord = (word: string): string | undefined => {
  const key = word.trim().toLowerCase().replace(/\./g, '');
  return Object.hasOwn(UCUM_CODES, key) ? UCUM_CODES[key] : undefined;
};

/**
 * The UCUM code of a unit as written (`mg`, `MG`, `mcg`, `mg/mL`, `mg per mL`), or undefined when
 * any part of it is not a unit we map: the whole text must be the unit, never a prefix of it.
 */
export function ucumCodeOf(unit: string): string | undefined {
  const parts = unit.split(/\s*(?:\/|\bper\s)\s*/i);
  if (parts.length > 2) return undefined;
  const [top = '', per] = parts;
  const topCode = codeOfWord(top);
  if (topCode === undefined) return undefined;
  if (per === undefined) return topCode;
  const perCode = codeOfWord(per);
  return perCode === undefined || perCode === '%' ? undefined : `${topCode}/${perCode}`;
}

/** A Quantity of `value` in `unit` (its text as written; UCUM's system and code when mapped). */
export function quantityOf(value: number, unit: string | null): Quantity {
  if (unit === null || unit.trim() === '') return { value };
  const code = ucumCodeOf(unit);
  return code === undefined ? { value, unit: unit.trim() } : { value, unit: unit.trim(), system: UCUM, code };
}

/** A number of days, as MedicationRequest.dispenseRequest.expectedSupplyDuration wants it. */
export const daysOf = (days: number): Duration => ({ value: days, unit: 'days', system: UCUM, code: 'd' });

/** A decimal as our formulas write it (`2.5`, `0.125`, `10`): anything else (`2.5-5`, `q.s.`) is not a number. */
const DECIMAL = /^\d{1,12}(?:\.\d{1,9})?$|^\.\d{1,9}$/;

/**
 * An ingredient's strength as a Ratio: `2.5` of `mg/mL` is 2.5 mg per 1 mL; a unit with no `per`
 * (`25` `mg` in a capsule) is per one of `perUnit` (the dosage form, `capsule`), or per UCUM's unity
 * `1` when the form is not a countable one. Undefined when the strength is not a plain number: FHIR's
 * Ratio holds numbers only, and an ingredient without a strength is valid.
 */
export function strengthRatioOf(strength: string, unit: string, perUnit: string | null): Ratio | undefined {
  const amount = strength.trim();
  if (!DECIMAL.test(amount)) return undefined;
  const value = Number(amount);
  const slash = /\s*(?:\/|\bper\s)\s*/i.exec(unit);
  if (slash !== null && slash.index > 0) {
    const top = unit.slice(0, slash.index);
    const per = unit.slice(slash.index + slash[0].length);
    if (per.trim() !== '') return { numerator: quantityOf(value, top), denominator: quantityOf(1, per) };
  }
  return {
    numerator: quantityOf(value, unit),
    denominator: perUnit === null ? { value: 1, unit: '1', system: UCUM, code: '1' } : { value: 1, unit: perUnit },
  };
}

/** Dosage forms counted one by one (a strength is per capsule): the form's word, singular. */
const COUNTABLE_FORMS = [
  'capsule',
  'tablet',
  'troche',
  'lozenge',
  'suppository',
  'patch',
  'chew',
  'treat',
  'pellet',
  'vial',
  'syringe',
];

/** The unit one piece of a dosage form is counted in (`Capsules` → `capsule`), or null for a form that is not counted (cream, solution). */
export function countableUnitOf(dosageForm: string | null): string | null {
  if (dosageForm === null) return null;
  const words = dosageForm.toLowerCase().split(/[^a-z]+/);
  return (
    COUNTABLE_FORMS.find((form) => words.some((word) => word === form || word === `${form}s` || word === `${form}es`)) ?? null
  );
}
