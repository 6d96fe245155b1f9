import type { AuditedReadContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { decodeCursor, encodeCursor, type Page, type PagePosition } from '../db/keyset-page.js';
import { csvLine } from '../shared/csv.js';
import { phoneOf } from '../patients/patient-phone.js';
import type { OrderStatus } from '../orders/order-status.js';
import { listLotItems, type RecallRow } from './recall.repository.js';
import type { RecallItemData } from './recall.schemas.js';

/*
 * A recall (issue 30, item 4; docs/compounding.md#recall): every item of every order that received a
 * lot, across clinics, as a page (JSON) or as the whole list in CSV. Every order listed, and every
 * patient whose name is shown, is audited as read by the operator, as the queue's are.
 */

/** Rows a CSV export reads at a time: each page is one bounded query, written before the next is read. */
export const CSV_PAGE_ROWS = 500;

/** GET /api/admin/lots/{lot_number}/orders: a page, newest order first (keyset on the order's created_at, the item's id). */
export async function listLotOrders(
  ctx: AuditedReadContext,
  lotNumber: string,
  query: { limit?: number; cursor?: string },
  audit: AuditContext,
): Promise<Page<RecallItemData>> {
  const limit = query.limit ?? 50;
  const { items, next } = await readPage(
    ctx,
    lotNumber,
    query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    limit,
    audit,
  );
  return { items, next_cursor: next ? encodeCursor(next) : null };
}

/**
 * The CSV's columns, in order: the JSON item's fields, the patient's flattened (the item's quantity and unit after the fill's), then how to reach
 * the patient (issue 39, item 11): their phone (first `phone` contact, else `sms`) and the address
 * the order shipped to (the order's own, given by a hold's answer, else the patient's). The JSON page
 * leaves these out: a recall's list on screen names whom; the export is what the pharmacy calls from.
 */
export const RECALL_CSV_COLUMNS = [
  'medication_request_id',
  'clinic_id',
  'clinic_name',
  'patient_id',
  'patient_first_name',
  'patient_last_name',
  'status',
  'shipped_at',
  'created_at',
  'medication_item_id',
  'medication',
  'match',
  'ingredient',
  'fill_lot_number',
  'compounded_at',
  'beyond_use_date',
  'quantity',
  'unit_of_measure',
  'patient_phone',
  'address_line_1',
  'address_line_2',
  'city',
  'state',
  'postal_code',
] as const;

/**
 * The same list as CSV, from `cursor` (or the start) to its end: a header line, then one line per
 * item, read CSV_PAGE_ROWS at a time. The caller checks the lot and the cursor before the first line
 * is sent (a refusal is still a 400 then); a failure after it cuts the stream short.
 */
export async function* recallCsv(
  ctx: AuditedReadContext,
  lotNumber: string,
  from: PagePosition | undefined,
  audit: AuditContext,
): AsyncGenerator<string> {
  yield csvLine(RECALL_CSV_COLUMNS);
  let position = from;
  do {
    const { rows, next } = await readPage(ctx, lotNumber, position, CSV_PAGE_ROWS, audit);
    yield rows.map(csvRow).join('');
    position = next;
  } while (position);
}

async function readPage(
  ctx: AuditedReadContext,
  lotNumber: string,
  before: PagePosition | undefined,
  limit: number,
  audit: AuditContext,
): Promise<{ rows: RecallRow[]; items: RecallItemData[]; next: PagePosition | undefined }> {
  const rows = await listLotItems(ctx.db, lotNumber, before, limit + 1);
  const listed = rows.slice(0, limit);
  const items = listed.map(toRecallItem);
  await ctx.audit.recordReads(audit, auditedReads(items));
  const last = listed[listed.length - 1];
  return {
    rows: listed,
    items,
    next: rows.length > limit && last ? { createdAt: last.created_at, id: last.medication_item_id } : undefined,
  };
}

function auditedReads(items: RecallItemData[]): AuditedResource[] {
  const orders = new Map(items.map((item) => [item.medication_request_id, item.clinic_id]));
  const patients = new Map(items.map((item) => [item.patient.patient_id, item.clinic_id]));
  return [
    ...[...orders].map(([id, clinicId]): AuditedResource => ({ type: 'medication_request', id, clinicId })),
    ...[...patients].map(([id, clinicId]): AuditedResource => ({ type: 'patient', id, clinicId })),
  ];
}

function toRecallItem(row: RecallRow): RecallItemData {
  return {
    medication_request_id: row.id,
    clinic_id: row.clinic_id,
    clinic_name: row.clinic_name,
    patient: { patient_id: row.patient_id, first_name: row.patient_first_name, last_name: row.patient_last_name },
    status: row.status as OrderStatus,
    shipped_at: row.shipped_at,
    created_at: row.created_at,
    medication_item_id: row.medication_item_id,
    medication: row.medication,
    quantity: row.quantity,
    unit_of_measure: row.unit_of_measure,
    match: row.matched,
    ingredient: row.ingredient,
    fill_lot_number: row.fill_lot_number,
    compounded_at: row.compounded_at,
    beyond_use_date: row.beyond_use_date,
  };
}

function csvRow(row: RecallRow): string {
  const item = toRecallItem(row);
  return csvLine([
    item.medication_request_id,
    item.clinic_id,
    item.clinic_name,
    item.patient.patient_id,
    item.patient.first_name,
    item.patient.last_name,
    item.status,
    item.shipped_at,
    item.created_at,
    item.medication_item_id,
    item.medication,
    item.match,
    item.ingredient,
    item.fill_lot_number,
    item.compounded_at,
    item.beyond_use_date,
    String(item.quantity),
    item.unit_of_measure,
    phoneOf(row.patient_contacts),
    row.address_line_1,
    row.address_line_2,
    row.city,
    row.state,
    row.postal_code,
  ]);
}
