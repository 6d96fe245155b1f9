import type { Storage } from '../medications/beyond-use.js';
import type { MedicationItemFillTable } from './compounding.tables.js';
import type { ItemFillData } from './order-fill.schemas.js';

/** What a partner reads of an item's fill (null before the fill), assembled with the order in fulfillment/order-view.ts. */
export const itemFillView = (fill: MedicationItemFillTable | undefined): ItemFillData | null =>
  fill === undefined
    ? null
    : { lot_number: fill.lot_number, beyond_use_date: fill.beyond_use_date, storage: fill.storage as Storage | null };
