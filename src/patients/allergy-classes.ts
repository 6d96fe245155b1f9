/**
 * Allergy classes: a patient's allergy written as a class ("sulfa", "PEG", "parabens", "peanut")
 * names many ingredients, active or inactive, that a name-for-name comparison would miss. Each class
 * lists the words a recorded allergy may use for it and the ingredient names it covers; the operator
 * extends the table (the `allergy_classes` rows, merged over these defaults by code). Pure: no I/O.
 *
 * An ingredient is covered by a class when its words contain one of the class's member phrases as
 * consecutive words ("refined cottonseed oil" contains "cottonseed"; "polysorbate 80" contains
 * "polysorbate"). A recorded allergy is of a class when, with its salt words removed (allergy-match.ts),
 * it is one of the class's names or its code.
 *
 * Sources (docs/compounding.md#allergies-and-duplicate-therapy): excipients named in compounded and
 * brand injectables (testosterone cypionate in cottonseed oil; estradiol valerate in castor oil;
 * progesterone in sesame oil; benzyl alcohol and benzyl benzoate as preservative and solubilizer);
 * the cross-reactivity of PEG with polysorbates (ACAAI and FDA notes on PEG allergy); the parabens
 * (methyl-, ethyl-, propyl-, butylparaben, the hydroxybenzoates); the sulfonamide antibiotics.
 */
import { substanceKey } from './substance-key.js';

export interface AllergyClass {
  /** A stable code (`peg`, `sulfonamides`). */
  readonly code: string;
  /** The class as staff read it. */
  readonly label: string;
  /** Words a recorded allergy may use for the class (matched by substance key). */
  readonly names: readonly string[];
  /** Ingredient phrases the class covers (matched as consecutive words of the ingredient's name). */
  readonly members: readonly string[];
}

export const DEFAULT_ALLERGY_CLASSES: readonly AllergyClass[] = [
  {
    code: 'sulfonamides',
    label: 'Sulfonamide antibiotics',
    names: ['sulfa', 'sulfas', 'sulfa drugs', 'sulfonamide', 'sulfonamides', 'sulpha'],
    members: [
      'sulfamethoxazole',
      'sulfadiazine',
      'sulfasalazine',
      'sulfacetamide',
      'sulfisoxazole',
      'sulfadoxine',
      'sulfanilamide',
    ],
  },
  {
    code: 'peg',
    label: 'Polyethylene glycol (PEG) and polysorbates',
    names: ['peg', 'polyethylene glycol', 'macrogol', 'polyethylene glycols'],
    members: ['polyethylene glycol', 'peg', 'macrogol', 'polysorbate', 'polyoxyl', 'peg 300', 'peg 400', 'peg 3350'],
  },
  {
    code: 'parabens',
    label: 'Parabens',
    names: ['paraben', 'parabens', 'hydroxybenzoates'],
    members: ['methylparaben', 'ethylparaben', 'propylparaben', 'butylparaben', 'paraben', 'hydroxybenzoate'],
  },
  { code: 'benzyl_alcohol', label: 'Benzyl alcohol', names: ['benzyl alcohol'], members: ['benzyl alcohol'] },
  { code: 'benzyl_benzoate', label: 'Benzyl benzoate', names: ['benzyl benzoate'], members: ['benzyl benzoate'] },
  {
    code: 'cottonseed_oil',
    label: 'Cottonseed oil',
    names: ['cottonseed', 'cottonseed oil', 'cotton seed'],
    members: ['cottonseed', 'cotton seed'],
  },
  { code: 'sesame_oil', label: 'Sesame oil', names: ['sesame', 'sesame oil', 'sesame seed'], members: ['sesame'] },
  {
    code: 'peanut_oil',
    label: 'Peanut (arachis) oil',
    names: ['peanut', 'peanuts', 'peanut oil', 'arachis', 'arachis oil', 'groundnut'],
    members: ['peanut', 'arachis', 'groundnut'],
  },
  {
    code: 'almond_oil',
    label: 'Almond oil',
    names: ['almond', 'almonds', 'almond oil', 'sweet almond oil', 'tree nut', 'tree nuts'],
    members: ['almond', 'prunus amygdalus'],
  },
  {
    code: 'grapeseed_oil',
    label: 'Grapeseed oil',
    names: ['grapeseed', 'grape seed', 'grapeseed oil'],
    members: ['grapeseed', 'grape seed'],
  },
  {
    code: 'castor_oil',
    label: 'Castor oil and its derivatives',
    names: ['castor', 'castor oil', 'cremophor'],
    members: ['castor', 'ricinus', 'cremophor', 'kolliphor el'],
  },
];

/** A name's words: lower case letters and digits, as substanceKey splits them. */
const wordsOf = (name: string): string[] =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

/** True when `phrase`'s words appear as consecutive words of `name`. */
export function containsPhrase(name: string, phrase: string): boolean {
  const words = wordsOf(name);
  const wanted = wordsOf(phrase);
  if (wanted.length === 0) return false;
  for (let i = 0; i + wanted.length <= words.length; i++) {
    if (wanted.every((word, k) => words[i + k] === word)) return true;
  }
  return false;
}

/** The classes a recorded allergy names (by one of their names or their code). */
export function classesOfAllergy(substance: string, classes: readonly AllergyClass[]): AllergyClass[] {
  const key = substanceKey(substance);
  if (key === '') return [];
  return classes.filter((c) => substanceKey(c.code) === key || c.names.some((name) => substanceKey(name) === key));
}

/** The class of `classes` that covers an ingredient for this allergy, or undefined. */
export const coveringClass = (ingredient: string, allergyClasses: readonly AllergyClass[]): AllergyClass | undefined =>
  allergyClasses.find((c) => c.members.some((member) => containsPhrase(ingredient, member)));

/** The defaults with the operator's rows applied: a row replaces the default of its code, or adds a class. */
export function mergedClasses(own: readonly AllergyClass[]): AllergyClass[] {
  const byCode = new Map(DEFAULT_ALLERGY_CLASSES.map((c) => [c.code, c]));
  for (const row of own) byCode.set(row.code, row);
  return [...byCode.values()];
}
