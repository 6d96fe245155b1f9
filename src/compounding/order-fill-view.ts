import type { Storage } from '../medications/beyond-use.js';
import type { MedicationItemFillTable } from './compounding.tables.js';
import type { ItemFillData } from './order-fill.schemas.js';

/** What a partner reads of an item's fill (null before the fill), assembled with the order in fulfillment/order-view.ts. */
export const itemFillView = (fill: MedicationItemFillTable | undefined): ItemFillData | null =>
  fill === undefined
    ? null
    : {
        lot_number: fill.lot_number,
        beyond_use_date: fill.beyond_use_date,
        storage: fill.storage as Storage | null,
        ...beyondUseOf(fill),
      };

/** What a fill says of its beyond-use date beyond the date, as both reads show it. */
export const beyondUseOf = (
  fill: MedicationItemFillTable,
): Pick<ItemFillData, 'beyond_use_at' | 'beyond_use_basis' | 'formula_version'> => ({
  beyond_use_at: fill.beyond_use_at ?? null,
  beyond_use_basis: (fill.beyond_use_basis ?? null) as ItemFillData['beyond_use_basis'],
  formula_version: fill.formula_version ?? null,
});
