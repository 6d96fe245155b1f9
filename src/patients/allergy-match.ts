/**
 * How an ingredient is compared with a patient's allergy, and with the ingredients of the patient's
 * other orders (issue 30, item 6; docs/compounding.md#allergies-and-duplicate-therapy). Pure: no I/O.
 *
 * Two names are the same substance when their keys are equal: letters and digits only, in lower case,
 * with no spaces, once every salt word is removed. "Naltrexone Hydrochloride", "naltrexone HCl" and
 * "NALTREXONE" are one key; "semaglutide sodium" and "Semaglutide" another. A name made only of
 * salt words (an allergy to "sulfate") keeps them all: it is compared as written.
 *
 * Beyond names, the allergy classes of allergy-classes.ts link an allergy written as a class to the
 * ingredients it covers. It is not a full drug-class check: an allergy to "penicillin" does not match
 * "amoxicillin" unless the operator adds that class. The pharmacist's review of the held order is the
 * clinical check.
 */
import { classesOfAllergy, coveringClass, DEFAULT_ALLERGY_CLASSES, type AllergyClass } from './allergy-classes.js';
import { substanceKey } from './substance-key.js';

/** An ingredient (active or inactive) of an ordered item that the patient is allergic to. */
export interface AllergyMatch {
  /** The ingredient as the formula names it. */
  ingredient: string;
  /** The allergy as the patient's record names it. */
  substance: string;
  severity: string | null;
  /** The allergy class that links them (allergy-classes.ts), or null for the same substance by name. */
  allergy_class: string | null;
}

/**
 * Every (ingredient, allergy) pair, in the ingredients' order, each ingredient once: the same
 * substance by name (see above), or an ingredient a class covers when the allergy names that class
 * ("PEG" and polysorbate 80, "sulfa" and sulfamethoxazole, "peanut" and arachis oil).
 */
export function allergyMatches(
  ingredients: readonly string[],
  allergies: readonly { substance: string; severity?: string | null | undefined }[],
  classes: readonly AllergyClass[] = DEFAULT_ALLERGY_CLASSES,
): AllergyMatch[] {
  const byKey = new Map<string, { substance: string; severity: string | null }>();
  const byClass: { allergy: { substance: string; severity: string | null }; classes: AllergyClass[] }[] = [];
  for (const allergy of allergies) {
    const key = substanceKey(allergy.substance);
    const recorded = { substance: allergy.substance, severity: allergy.severity ?? null };
    if (key !== '' && !byKey.has(key)) byKey.set(key, recorded);
    const named = classesOfAllergy(allergy.substance, classes);
    if (named.length > 0) byClass.push({ allergy: recorded, classes: named });
  }
  const matches: AllergyMatch[] = [];
  const seen = new Set<string>();
  for (const ingredient of ingredients) {
    const key = substanceKey(ingredient);
    if (seen.has(key)) continue;
    const allergy = byKey.get(key);
    if (allergy !== undefined) {
      seen.add(key);
      matches.push({ ingredient, substance: allergy.substance, severity: allergy.severity, allergy_class: null });
      continue;
    }
    for (const { allergy: recorded, classes: named } of byClass) {
      const covering = coveringClass(ingredient, named);
      if (covering === undefined) continue;
      seen.add(key);
      matches.push({ ingredient, substance: recorded.substance, severity: recorded.severity, allergy_class: covering.code });
      break;
    }
  }
  return matches;
}
