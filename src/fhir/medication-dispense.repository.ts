import type { ExpressionBuilder, SqlBool, Expression } from 'kysely';
import type { Database, DbOrTrx } from '../db/database.js';
import type { DispenseCondition } from './medication-dispense-status.js';

/*
 * What a MedicationDispense is built from: a medication item of a clinic's order, with the order's
 * status, whether the order ever reached `processing` (its history), and the item's fill. One query
 * reads a page, one counts the matches, whatever the page's size.
 */

export interface DispenseRow {
  item_id: string;
  order_id: string;
  patient_id: string;
  order_status: string;
  refill_of: string | null;
  shipped_at: string | null;
  delivered_at: string | null;
  hold_reason_code: string | null;
  medication: string;
  dose: string;
  unit_of_measure: string | null;
  quantity: number;
  days_supply: number | null;
  direction: string;
  fill_id: string | null;
  compounded_at: string | null;
  /** 1 when the order's history has a move to `processing`. */
  reached_processing: number;
}

/** The matches of a search; every field set must hold, and `conditions` is a disjunction (never empty). */
export interface DispenseFilter {
  readonly itemIds?: readonly string[];
  readonly patientIds?: readonly string[];
  readonly conditions: readonly DispenseCondition[];
}

/** The expressions of the joined query below (its aliases), for the conditions built outside its chain. */
type ItemExpressions = ExpressionBuilder<
  Database & {
    i: Database['medication_items'];
    p: Database['prescriptions'];
    o: Database['medication_requests'];
    f: Database['medication_item_fills'];
  },
  'i' | 'p' | 'o' | 'f'
>;

/** The clinic's items with their prescription, order and fill (left: an item may be unfilled). */
function itemsOfClinic(db: DbOrTrx, clinicId: string) {
  return db
    .selectFrom('medication_items as i')
    .innerJoin('prescriptions as p', 'p.id', 'i.prescription_id')
    .innerJoin('medication_requests as o', 'o.id', 'p.medication_request_id')
    .leftJoin('medication_item_fills as f', 'f.medication_item_id', 'i.id')
    .where('o.clinic_id', '=', clinicId);
}

/** Whether the order entered `processing` at some point (the history's index starts with the order). */
const reachedProcessing = (eb: ItemExpressions): Expression<SqlBool> =>
  eb.exists(
    eb
      .selectFrom('medication_request_status_history as h')
      .select('h.id')
      .whereRef('h.medication_request_id', '=', 'o.id')
      .where('h.to_status', '=', 'processing'),
  );

function conditionOf(eb: ItemExpressions, condition: DispenseCondition): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [eb('o.status', '=', condition.orderStatus)];
  if (condition.reachedProcessing !== undefined) {
    parts.push(condition.reachedProcessing ? reachedProcessing(eb) : eb.not(reachedProcessing(eb)));
  }
  if (condition.filled !== undefined) parts.push(eb('f.id', condition.filled ? 'is not' : 'is', null));
  return eb.and(parts);
}

function matching(db: DbOrTrx, clinicId: string, filter: DispenseFilter) {
  let query = itemsOfClinic(db, clinicId).where((eb) => eb.or(filter.conditions.map((c) => conditionOf(eb, c))));
  if (filter.itemIds !== undefined) query = query.where('i.id', 'in', filter.itemIds);
  if (filter.patientIds !== undefined) query = query.where('o.patient_id', 'in', filter.patientIds);
  return query;
}

function withColumns(query: ReturnType<typeof itemsOfClinic>) {
  return query.select((eb) => [
    'i.id as item_id',
    'o.id as order_id',
    'o.patient_id',
    'o.status as order_status',
    'o.refill_of',
    'o.shipped_at',
    'o.delivered_at',
    'o.hold_reason_code',
    'i.medication',
    'i.dose',
    'i.unit_of_measure',
    'i.quantity',
    'i.days_supply',
    'i.direction',
    'f.id as fill_id',
    'f.compounded_at',
    eb.case().when(reachedProcessing(eb)).then(1).else(0).end().as('reached_processing'),
  ]);
}

/** One item of the clinic (whatever its order's status: the caller decides whether it has a dispense). */
export async function findDispenseRow(db: DbOrTrx, clinicId: string, itemId: string): Promise<DispenseRow | undefined> {
  const row = await withColumns(itemsOfClinic(db, clinicId).where('i.id', '=', itemId)).executeTakeFirst();
  return row === undefined ? undefined : toRow(row);
}

/** Up to `limit` matches with ids strictly after `afterId`, ids ascending. */
export async function listDispenseRows(
  db: DbOrTrx,
  clinicId: string,
  filter: DispenseFilter,
  afterId: string | null,
  limit: number,
): Promise<DispenseRow[]> {
  let query = matching(db, clinicId, filter);
  if (afterId !== null) query = query.where('i.id', '>', afterId);
  const rows = await withColumns(query).orderBy('i.id').limit(limit).execute();
  return rows.map(toRow);
}

/** How many items match across all pages. */
export async function countDispenseRows(db: DbOrTrx, clinicId: string, filter: DispenseFilter): Promise<number> {
  const row = await matching(db, clinicId, filter)
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The hold columns came with a later migration (optional in the table type): null when unset. */
function toRow(row: Omit<DispenseRow, 'hold_reason_code'> & { hold_reason_code?: string | null }): DispenseRow {
  return { ...row, hold_reason_code: row.hold_reason_code ?? null };
}
