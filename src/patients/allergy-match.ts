/**
 * How an ingredient is compared with a patient's allergy, and with the ingredients of the patient's
 * other orders (issue 30, item 6; docs/compounding.md#allergies-and-duplicate-therapy). Pure: no I/O.
 *
 * Two names are the same substance when their keys are equal: letters and digits only, in lower case,
 * with no spaces, once every salt word is removed. "Naltrexone Hydrochloride", "naltrexone HCl" and
 * "NALTREXONE" are one key; "semaglutide sodium" and "Semaglutide" another. A name made only of
 * salt words (an allergy to "sulfate") keeps them all: it is compared as written.
 *
 * This is a name match, not a drug-class check: an allergy to "penicillin" does not match
 * "amoxicillin". The pharmacist's review of the held order is the clinical check.
 */

/**
 * The words removed before comparing: the salt, ester and hydrate forms an active ingredient is
 * named with (USP's and the FDA's salt nomenclature), which do not change what the patient reacts to.
 */
export const SALT_WORDS: readonly string[] = [
  'acetate',
  'anhydrous',
  'benzoate',
  'besylate',
  'bitartrate',
  'bromide',
  'calcium',
  'chloride',
  'citrate',
  'cypionate',
  'dihydrate',
  'dihydrochloride',
  'dipropionate',
  'disodium',
  'enanthate',
  'fumarate',
  'gluconate',
  'hbr',
  'hcl',
  'hemihydrate',
  'hyclate',
  'hydrobromide',
  'hydrochloride',
  'lactate',
  'magnesium',
  'maleate',
  'mesylate',
  'monohydrate',
  'nitrate',
  'phosphate',
  'potassium',
  'propionate',
  'sodium',
  'succinate',
  'sulfate',
  'sulphate',
  'tartrate',
  'tosylate',
  'trihydrate',
  'valerate',
];

const SALTS: ReadonlySet<string> = new Set(SALT_WORDS);

/** The key two names of one substance share (see above); '' for a name with no letter or digit. */
export function substanceKey(name: string): string {
  const words = name
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
  const kept = words.filter((word) => !SALTS.has(word));
  return (kept.length > 0 ? kept : words).join('');
}

/** An active ingredient of an ordered item that the patient is allergic to. */
export interface AllergyMatch {
  /** The ingredient as the formula names it. */
  ingredient: string;
  /** The allergy as the patient's record names it. */
  substance: string;
  severity: string | null;
}

/** Every (ingredient, allergy) pair of the same substance, in the ingredients' order, each ingredient once. */
export function allergyMatches(
  ingredients: readonly string[],
  allergies: readonly { substance: string; severity?: string | null | undefined }[],
): AllergyMatch[] {
  const byKey = new Map<string, { substance: string; severity: string | null }>();
  for (const allergy of allergies) {
    const key = substanceKey(allergy.substance);
    if (key !== '' && !byKey.has(key)) byKey.set(key, { substance: allergy.substance, severity: allergy.severity ?? null });
  }
  const matches: AllergyMatch[] = [];
  const seen = new Set<string>();
  for (const ingredient of ingredients) {
    const key = substanceKey(ingredient);
    const allergy = byKey.get(key);
    if (allergy === undefined || seen.has(key)) continue;
    seen.add(key);
    matches.push({ ingredient, substance: allergy.substance, severity: allergy.severity });
  }
  return matches;
}
