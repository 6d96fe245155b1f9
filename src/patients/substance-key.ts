/**
 * A substance's key: two names are the same substance when their keys are equal (allergy-match.ts
 * says how intake uses it). Letters and digits only, in lower case, with no spaces, once every salt
 * word is removed. Pure.
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
