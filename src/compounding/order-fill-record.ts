import type { SystemChange } from '../changes/run-change.js';
import type { Environment } from '../config.js';
import type { Trx } from '../db/database.js';
import { conflict } from '../errors.js';
import { addDays } from '../medications/beyond-use.js';
import { newId } from '../shared/ids.js';
import { fillsInsert, ingredientLotsInsert, listItemsToFill, type ItemToFill } from './order-fill.repository.js';
import { computedFill, dayOf, formulaOfItem, generatedLot } from './order-fill.rules.js';
import type { OrderTable } from '../orders/order.tables.js';
import type { FillIngredientLotTable, MedicationItemFillTable } from './compounding.tables.js';

/** What one item's fill records, as given (or generated). */
export interface FillRecord {
  lot_number: string;
  /** Stored form (UTC with milliseconds). */
  compounded_at: string;
  ingredient_lots: readonly { ingredient: string; lot_number: string; expires_on: string }[];
}

/** Who recorded a fill: a staff member, or nobody by name (the operator token, the development server). */
export interface FilledBy {
  id: string | null;
  name: string | null;
}

/** The rows of one item's fill, the beyond-use date and storage computed from its entry's formula. */
export function fillRows(
  order: OrderTable,
  item: ItemToFill,
  record: FillRecord,
  now: string,
  by: FilledBy,
  generated: boolean,
): { fill: MedicationItemFillTable; lots: FillIngredientLotTable[] } {
  const id = newId();
  const computed = computedFill(
    formulaOfItem(item),
    record.compounded_at,
    record.ingredient_lots.map((lot) => lot.expires_on),
  );
  return {
    fill: {
      id,
      medication_request_id: order.id,
      medication_item_id: item.id,
      clinic_id: order.clinic_id,
      medication_id: item.medication_id,
      lot_number: record.lot_number,
      compounded_at: record.compounded_at,
      ...computed,
      generated: generated ? 1 : 0,
      filled_by_id: by.id,
      filled_by_name: by.name,
      created_at: now,
    },
    lots: record.ingredient_lots.map((lot, position) => ({
      id: newId(),
      fill_id: id,
      medication_request_id: order.id,
      clinic_id: order.clinic_id,
      position,
      ingredient: lot.ingredient,
      lot_number: lot.lot_number,
      expires_on: lot.expires_on,
    })),
  };
}

/** Keeps the fills' writes in the change (run at its commit, in its transaction). */
export function writeFills(
  change: SystemChange,
  made: readonly { fill: MedicationItemFillTable; lots: FillIngredientLotTable[] }[],
): void {
  if (made.length === 0) return;
  change.write(
    fillsInsert(
      change,
      made.map((m) => m.fill),
    ),
  );
  const lots = made.flatMap((m) => m.lots);
  if (lots.length > 0) change.write(ingredientLotsInsert(change, lots));
}

/** What `order.fulfilled` says of each item: the formulary's name, the lot and the beyond-use date (no PHI, no free text). */
export interface ShippedItem {
  medication: string;
  lot_number: string | null;
  beyond_use_date: string | null;
}

/** How long a generated ingredient lot lasts: long enough never to cap a generated fill's beyond-use date. */
const GENERATED_LOT_DAYS = 730;

/**
 * The fill check of a move to `shipped` (docs/compounding.md#the-fill), a step of the one place
 * orders move (orders/order-transition.ts `applyTransition`; the step: fulfillment/order-move.ts),
 * inside the move's change:
 * - production: an item whose entry has a formula and no fill stops the move (409 naming each one);
 *   an item with no formula may ship unfilled;
 * - development: every unfilled item is filled now with generated lots (`DEV-…`, compounded now,
 *   `generated` 1), so that a sandbox partner sees the whole record.
 * Returns the items as `order.fulfilled` carries them.
 */
export async function fillsAtShipping(
  change: SystemChange,
  trx: Trx,
  now: string,
  order: OrderTable,
  env: Environment,
): Promise<ShippedItem[]> {
  const items = await listItemsToFill(trx, order.id);
  const unfilled = items.filter((item) => item.fill === null);
  if (env === 'production') {
    const missing = unfilled.filter((item) => formulaOfItem(item) !== null);
    if (missing.length > 0) throw unfilledItems(order.id, items, missing);
    return items.map((item) => shippedItem(item, item.fill));
  }
  const made = new Map(
    unfilled.map((item) => [item.id, fillRows(order, item, generatedRecord(item, now), now, { id: null, name: null }, true)]),
  );
  writeFills(change, [...made.values()]);
  return items.map((item) => shippedItem(item, item.fill ?? made.get(item.id)?.fill ?? null));
}

function shippedItem(item: ItemToFill, fill: MedicationItemFillTable | null): ShippedItem {
  return {
    medication: item.entry_name ?? item.medication,
    lot_number: fill?.lot_number ?? null,
    beyond_use_date: fill?.beyond_use_date ?? null,
  };
}

/** A development fill: a generated lot, compounded now, a generated lot per ingredient of the formula. */
function generatedRecord(item: ItemToFill, now: string): FillRecord {
  const expires = addDays(dayOf(now), GENERATED_LOT_DAYS);
  return {
    lot_number: generatedLot(newId()),
    compounded_at: now,
    ingredient_lots: (formulaOfItem(item)?.ingredients ?? []).map((ingredient) => ({
      ingredient: ingredient.name,
      lot_number: generatedLot(newId()),
      expires_on: expires,
    })),
  };
}

/** 409: the items (by their place in `medication_requests`, id and medication) that must be filled before shipping. */
function unfilledItems(orderId: string, items: readonly ItemToFill[], missing: readonly ItemToFill[]) {
  const named = missing.map((item) => `${item.entry_name ?? item.medication} (item ${item.id})`).join(', ');
  const details: Record<string, string> = {};
  for (const item of missing) {
    details[`medication_requests[${items.indexOf(item)}].fill`] =
      `is required before shipping: ${item.entry_name ?? item.medication} (item ${item.id}) has a formula and no fill`;
  }
  return conflict(
    `The medication request cannot ship: ${missing.length === 1 ? 'an item with a formula has' : `${missing.length} items with a formula have`} no fill: ${named}. Record it with POST /api/admin/medication-requests/${orderId}/fill`,
    details,
  );
}
