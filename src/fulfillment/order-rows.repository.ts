import type { AliasedRawBuilder } from 'kysely';
import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { MedicationItemTable, OrderTable } from '../orders/order.tables.js';
import type { MedicationItemFillTable } from '../compounding/compounding.tables.js';

/*
 * The order's rows as the partner's read needs them, read above the rooms (issue 38, item 7): the
 * items with their fills in one left join, and for one order the order's row with them, so that
 * `GET /api/external/medication-order/{id}` asks five queries (the key, this one, the history, the
 * shipments, the audit row) where it asked seven. The core (orders/) and compounding each keep
 * their own reads of these tables for their own work; this is the read the partner's view uses.
 */

/** An item with the order it belongs to. */
export type ItemOfOrder = MedicationItemTable & { medication_request_id: string };

/** An order's items, in their order, and the fills of those that have one. */
export interface ItemsAndFills {
  items: ItemOfOrder[];
  fills: MedicationItemFillTable[];
}

/** Every column of a table, once: the compiler refuses a list that misses one (see `Complete`). */
type Complete<Table, Listed extends readonly (keyof Table)[]> = [Exclude<keyof Table, Listed[number]>] extends [never]
  ? Listed
  : never;
const columns =
  <Table>() =>
  <const Listed extends readonly (keyof Table & string)[]>(listed: Complete<Table, Listed>): Listed =>
    listed;

const ITEM_COLUMNS = columns<MedicationItemTable>()([
  'id',
  'prescription_id',
  'position',
  'origin_item_id',
  'medication_id',
  'medication',
  'dose',
  'unit_of_measure',
  'quantity',
  'refills',
  'refills_used',
  'direction',
  'days_supply',
  'flavor',
  'notes',
  'do_not_refill',
  'do_not_fill',
  'patient_contact_requested',
  'reason_for_compounding',
  'reason_for_compounding_additional_context',
  'replaces_medication_request_id',
]);

const FILL_COLUMNS = columns<MedicationItemFillTable>()([
  'id',
  'medication_request_id',
  'medication_item_id',
  'clinic_id',
  'medication_id',
  'lot_number',
  'compounded_at',
  'beyond_use_date',
  'beyond_use_at',
  'beyond_use_basis',
  'beyond_use_limiting_lot',
  'formula_version',
  'storage',
  'generated',
  'filled_by_id',
  'filled_by_name',
  'created_at',
]);

type JoinedRow = Record<string, unknown>;

/** `table.column as prefix_column` for each column: the joined tables share names (`id`, `clinic_id`). */
const aliased = (table: string, prefix: string, names: readonly string[]): AliasedRawBuilder<unknown, string>[] =>
  names.map((name) => sql.ref(`${table}.${name}`).as(`${prefix}${name}`));

/** The part of a joined row that is one table's, under its own column names; undefined when its id is null (no fill). */
function unprefixed(row: JoinedRow, prefix: string, names: readonly string[]): JoinedRow | undefined {
  if (row[`${prefix}id`] === null || row[`${prefix}id`] === undefined) return undefined;
  const out: JoinedRow = {};
  for (const name of names) out[name] = row[`${prefix}${name}`];
  return out;
}

function itemsAndFillsOf(rows: JoinedRow[]): ItemsAndFills {
  const items: ItemOfOrder[] = [];
  const fills: MedicationItemFillTable[] = [];
  for (const row of rows) {
    const item = unprefixed(row, 'item_', ITEM_COLUMNS) as MedicationItemTable | undefined;
    if (item) items.push({ ...item, medication_request_id: row.item_medication_request_id as string });
    const fill = unprefixed(row, 'fill_', FILL_COLUMNS) as MedicationItemFillTable | undefined;
    if (fill) fills.push(fill);
  }
  return { items, fills };
}

/** The items of `from`'s orders with their fills, joined (`from` names the prescriptions as `p`). */
const itemsWithFillsSelection = [
  ...aliased('i', 'item_', ITEM_COLUMNS),
  sql.ref('p.medication_request_id').as('item_medication_request_id'),
  ...aliased('f', 'fill_', FILL_COLUMNS),
];

/**
 * One order of a clinic with its items and their fills, in one query (the order's columns repeat on
 * each item's row: an order has a few items); undefined when the clinic has no such order.
 */
export async function findOrderWithItems(
  db: DbOrTrx,
  clinicId: string,
  orderId: string,
): Promise<(ItemsAndFills & { order: OrderTable }) | undefined> {
  const rows = (await orderWithItems(db, clinicId, orderId)) as unknown as (OrderTable & JoinedRow)[];
  const [first] = rows;
  if (first === undefined) return undefined;
  const order: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(first))
    if (!name.startsWith('item_') && !name.startsWith('fill_')) order[name] = value;
  return { order: order as unknown as OrderTable, ...itemsAndFillsOf(rows) };
}

const orderWithItems = reusableQuery((db, clinicId: string, orderId: string) =>
  db
    .selectFrom('medication_requests as o')
    .innerJoin('prescriptions as p', 'p.medication_request_id', 'o.id')
    .innerJoin('medication_items as i', 'i.prescription_id', 'p.id')
    .leftJoin('medication_item_fills as f', 'f.medication_item_id', 'i.id')
    .selectAll('o')
    .select(itemsWithFillsSelection)
    .where('o.clinic_id', '=', clinicId)
    .where('o.id', '=', orderId)
    .orderBy('i.position'),
);

/** The items of several orders with their fills, in one query whatever their number. */
export async function listItemsWithFills(db: DbOrTrx, orderIds: string[]): Promise<ItemsAndFills> {
  if (orderIds.length === 0) return { items: [], fills: [] };
  const rows = await db
    .selectFrom('prescriptions as p')
    .innerJoin('medication_items as i', 'i.prescription_id', 'p.id')
    .leftJoin('medication_item_fills as f', 'f.medication_item_id', 'i.id')
    .select(itemsWithFillsSelection)
    .where('p.medication_request_id', 'in', orderIds)
    .orderBy('i.position')
    .execute();
  return itemsAndFillsOf(rows);
}
