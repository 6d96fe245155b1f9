/**
 * The checks at intake that a pharmacist resolves (issues 30 and 39;
 * docs/compounding.md#allergies-and-duplicate-therapy): an ingredient, active or inactive, the
 * patient is allergic to (by name or by an allergy class), or another of the patient's orders still
 * in use with the same active ingredient or of the same therapeutic class. Neither refuses the order:
 * it is accepted and held at once, waiting on the pharmacy. Pure: no I/O.
 */
import { allergyMatches, type AllergyMatch } from '../patients/allergy-match.js';
import { DEFAULT_ALLERGY_CLASSES, type AllergyClass } from '../patients/allergy-classes.js';
import { substanceKey } from '../patients/substance-key.js';
import type { Allergy } from '../patients/allergies.js';
import type { MedicationTable } from '../medications/medication.tables.js';
import type { IngredientView } from '../medications/medication.schemas.js';
import { HOLD_LIMITS } from './hold.schemas.js';
import { isFinal, type OrderStatus } from '../orders/order-status.js';

/** The statuses of an order whose medication the patient has or will have: every one but the final ones. */
export const IN_USE_STATUSES: readonly OrderStatus[] = ['pending', 'processing', 'on_hold', 'shipped'];

/** At most this many items of the patient's orders in use are compared (newest first): bounded work per order. */
export const MAX_ITEMS_IN_USE = 200;

const DAY_MS = 86_400_000;

/** An ordered item's formulary entry (null for a medication without one). */
export type OrderedEntry = Pick<MedicationTable, 'name' | 'ingredients' | 'therapeutic_class'>;

/** An item of another of the patient's orders whose entry has a formula or a class (intake-hold.repository.ts). */
export interface ItemInUse {
  medication_request_id: string;
  chain_origin_id: string | null;
  status: string;
  shipped_at: string | null;
  days_supply: number | null;
  medication: string;
  /** The entry's formula's ingredients (JSON), as the formulary holds them now; null for an entry without one. */
  ingredients: string | null;
  /** The entry's therapeutic class, as the formulary holds it now. */
  therapeutic_class: string | null;
}

/** The hold an order takes at intake. */
export interface IntakeHold {
  reason_code: 'allergy_conflict' | 'duplicate_therapy';
  message: string;
}

/** Every ingredient of an entry's formula, active and inactive; none for an entry without one. */
export function ingredientsOf(entry: Pick<MedicationTable, 'ingredients'> | undefined): IngredientView[] {
  if (entry?.ingredients === null || entry?.ingredients === undefined) return [];
  return JSON.parse(entry.ingredients) as IngredientView[];
}

/** The active ingredients of an entry's formula. */
export const activeIngredients = (entry: Pick<MedicationTable, 'ingredients'> | undefined): string[] =>
  ingredientsOf(entry)
    .filter((i) => i.active)
    .map((i) => i.name);

/** Whether some ordered entry has a formula or a therapeutic class: only then is there anything to compare. */
export const hasSomethingToCompare = (entries: readonly (OrderedEntry | undefined)[]): boolean =>
  entries.some((entry) => entry !== undefined && (ingredientsOf(entry).length > 0 || entry.therapeutic_class !== null));

/**
 * The hold of an order for these entries, or null.
 *
 * - `allergy_conflict` when an ingredient, active or inactive, is one of the patient's allergies by
 *   allergy-match.ts's name rule, or is covered by an allergy class the allergy names (`classes`:
 *   the defaults with the operator's rows applied).
 * - Otherwise `duplicate_therapy` when another order still in use has one of its active ingredients,
 *   or an entry of the same therapeutic class. Still in use: not final (delivered, cancelled) and,
 *   once shipped, within its `days_supply` counted from `shipped_at` (an unshipped order is not yet in
 *   the patient's hands, so it has not run out; an item without `days_supply` runs until the order
 *   is final). Orders of the same refill chain (`chainOriginId`) are never duplicates, nor are the
 *   orders this one replaces (`replaced`: the titration or switch case).
 *
 * The message names each ingredient and the allergy (with its class) or the other order; with both
 * kinds it names both.
 */
export function intakeHoldOf(input: {
  entries: readonly (OrderedEntry | undefined)[];
  allergies: readonly Allergy[] | null;
  inUse: readonly ItemInUse[];
  chainOriginId: string | null;
  now: string;
  classes?: readonly AllergyClass[];
  replaced?: ReadonlySet<string>;
}): IntakeHold | null {
  const entries = input.entries.filter((entry): entry is OrderedEntry => entry !== undefined);
  if (!hasSomethingToCompare(entries)) return null;
  const classes = input.classes ?? DEFAULT_ALLERGY_CLASSES;

  const ingredients = entries.flatMap((entry) =>
    ingredientsOf(entry).map((ingredient) => ({ ingredient, medication: entry.name })),
  );
  const byName = new Map(ingredients.map((o) => [o.ingredient.name, o]));
  const allergyLines = allergyMatches(
    ingredients.map((o) => o.ingredient.name),
    input.allergies ?? [],
    classes,
  ).map((m) => allergyLine(m, byName.get(m.ingredient), classes));

  const now = Date.parse(input.now);
  const replaced = input.replaced ?? new Set<string>();
  const inUse = input.inUse.filter(
    (item) => !replaced.has(item.medication_request_id) && stillInUse(item, input.chainOriginId, now),
  );
  const duplicateLines: string[] = [];
  const named = new Set<string>();
  for (const { ingredient, medication } of ingredients) {
    const key = substanceKey(ingredient.name);
    if (!ingredient.active || key === '' || named.has(key)) continue;
    const other = inUse.find((item) => activeIngredients(item).some((name) => substanceKey(name) === key));
    if (other === undefined) continue;
    named.add(key);
    named.add(`${medication}\u0000${other.medication_request_id}`);
    duplicateLines.push(
      `${ingredient.name} (in ${medication}) is already in the patient\u2019s order ${other.medication_request_id} (${other.medication}, ${other.status}).`,
    );
  }
  for (const entry of entries) {
    const therapeuticClass = entry.therapeutic_class;
    if (therapeuticClass === null) continue;
    const other = inUse.find(
      (item) => item.therapeutic_class === therapeuticClass && !named.has(`${entry.name}\u0000${item.medication_request_id}`),
    );
    if (other === undefined || named.has(`class\u0000${therapeuticClass}`)) continue;
    named.add(`class\u0000${therapeuticClass}`);
    duplicateLines.push(
      `${entry.name} is of the therapeutic class ${therapeuticClass}, as the patient\u2019s order ${other.medication_request_id} (${other.medication}, ${other.status}) is.`,
    );
  }

  if (allergyLines.length === 0 && duplicateLines.length === 0) return null;
  const parts = [
    ...(allergyLines.length > 0 ? [`Allergy conflict: ${allergyLines.join(' ')}`] : []),
    ...(duplicateLines.length > 0 ? [`Duplicate therapy: ${duplicateLines.join(' ')}`] : []),
    'The pharmacist reviews it before the order proceeds.',
  ];
  return {
    reason_code: allergyLines.length > 0 ? 'allergy_conflict' : 'duplicate_therapy',
    message: bounded(parts.join(' ')),
  };
}

/** `Benzyl alcohol (inactive, in Semaglutide) matches the patient’s recorded allergy to benzyl alcohol (severe).` */
function allergyLine(
  match: AllergyMatch,
  ordered: { ingredient: IngredientView; medication: string } | undefined,
  classes: readonly AllergyClass[],
): string {
  const where = `${ordered?.ingredient.active === false ? 'inactive, ' : ''}in ${ordered?.medication ?? ''}`;
  const label =
    match.allergy_class === null ? null : (classes.find((c) => c.code === match.allergy_class)?.label ?? match.allergy_class);
  const about = [match.severity, label === null ? null : `class: ${label}`].filter((part) => part !== null);
  return `${match.ingredient} (${where}) matches the patient\u2019s recorded allergy to ${match.substance}${about.length === 0 ? '' : ` (${about.join('; ')})`}.`;
}

function stillInUse(item: ItemInUse, chainOriginId: string | null, now: number): boolean {
  if (chainOriginId !== null && (item.medication_request_id === chainOriginId || item.chain_origin_id === chainOriginId)) {
    return false;
  }
  if (isFinal(item.status as OrderStatus)) return false;
  if (item.status !== 'shipped' || item.shipped_at === null || item.days_supply === null) return true;
  return Date.parse(item.shipped_at) + item.days_supply * DAY_MS > now;
}

/** A hold's message is at most HOLD_LIMITS.message characters, as the pharmacy's own are. */
function bounded(message: string): string {
  const max = HOLD_LIMITS.message;
  return message.length <= max ? message : `${message.slice(0, max - 1)}\u2026`;
}
