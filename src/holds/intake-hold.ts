/**
 * The checks at intake that a pharmacist resolves (issue 30, item 6;
 * docs/compounding.md#allergies-and-duplicate-therapy): an active ingredient the patient is
 * allergic to, or one already in another of the patient's orders still in use. Neither refuses the
 * order: it is accepted and held at once, waiting on the pharmacy. Pure: no I/O.
 */
import { allergyMatches } from '../patients/allergy-match.js';
import { substanceKey } from '../patients/allergy-match.js';
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
export type OrderedEntry = Pick<MedicationTable, 'name' | 'ingredients'>;

/** An item of another of the patient's orders whose entry has a formula (intake-hold.repository.ts). */
export interface ItemInUse {
  medication_request_id: string;
  chain_origin_id: string | null;
  status: string;
  shipped_at: string | null;
  days_supply: number | null;
  medication: string;
  /** The entry's formula's ingredients (JSON), as the formulary holds them now. */
  ingredients: string;
}

/** The hold an order takes at intake. */
export interface IntakeHold {
  reason_code: 'allergy_conflict' | 'duplicate_therapy';
  message: string;
}

/** The active ingredients of an entry's formula; none for an entry without one. */
export function activeIngredients(entry: Pick<MedicationTable, 'ingredients'> | undefined): string[] {
  if (entry?.ingredients === null || entry?.ingredients === undefined) return [];
  return (JSON.parse(entry.ingredients) as IngredientView[]).filter((i) => i.active).map((i) => i.name);
}

/** Whether some ordered entry has an active ingredient: only then is there anything to compare. */
export const hasActiveIngredients = (entries: readonly (OrderedEntry | undefined)[]): boolean =>
  entries.some((entry) => activeIngredients(entry).length > 0);

/**
 * The hold of an order for these entries, or null. `allergy_conflict` when an active ingredient is
 * one of the patient's allergies (by allergy-match.ts's name rule); otherwise `duplicate_therapy` when
 * one is in an item of another order still in use: not final (delivered, cancelled) and, once
 * shipped, within its `days_supply` counted from `shipped_at` (an unshipped order is not yet in the
 * patient's hands, so it has not run out; an item without `days_supply` runs until the order is
 * final). Orders of the same refill chain (`chainOriginId`) are never duplicates. The message names
 * each ingredient and the allergy or order; with both kinds it names both.
 */
export function intakeHoldOf(input: {
  entries: readonly (OrderedEntry | undefined)[];
  allergies: readonly Allergy[] | null;
  inUse: readonly ItemInUse[];
  chainOriginId: string | null;
  now: string;
}): IntakeHold | null {
  const ordered = input.entries.flatMap((entry) =>
    entry === undefined ? [] : activeIngredients(entry).map((ingredient) => ({ ingredient, medication: entry.name })),
  );
  if (ordered.length === 0) return null;

  const medicationOf = new Map(ordered.map((o) => [o.ingredient, o.medication]));
  const allergyLines = allergyMatches(
    ordered.map((o) => o.ingredient),
    input.allergies ?? [],
  ).map(
    (m) =>
      `${m.ingredient} (in ${medicationOf.get(m.ingredient) ?? ''}) matches the patient\u2019s recorded allergy to ${m.substance}${m.severity === null ? '' : ` (${m.severity})`}.`,
  );

  const now = Date.parse(input.now);
  const inUse = input.inUse.filter((item) => stillInUse(item, input.chainOriginId, now));
  const duplicateLines: string[] = [];
  const named = new Set<string>();
  for (const { ingredient, medication } of ordered) {
    const key = substanceKey(ingredient);
    if (key === '' || named.has(key)) continue;
    const other = inUse.find((item) => activeIngredients(item).some((name) => substanceKey(name) === key));
    if (other === undefined) continue;
    named.add(key);
    duplicateLines.push(
      `${ingredient} (in ${medication}) is already in the patient\u2019s order ${other.medication_request_id} (${other.medication}, ${other.status}).`,
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
