import type { AuditedReadContext, ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { decodeCursor, encodeCursor, type Page } from '../db/keyset-page.js';
import { fieldError, notFound } from '../errors.js';
import { businessHoursBetween, nextDate, startOfLocalDay } from '../shared/business-hours.js';
import { isCalendarDate } from '../shared/calendar-date.js';
import type { OrderStatus } from '../orders/order-status.js';
import { loadOrderView } from './order-view.js';
import { toOperatorDetail, toOperatorSummary } from './order-operator-view.js';
import { QUEUE_SEARCH_MAX_WORDS, type OperatorOrderSummaryData } from './order-operator.schemas.js';
import type { OperatorOrderDetailData } from './order-operator-detail.schemas.js';
import * as operatorRepo from '../orders/order-operator.repository.js';
import { decodeQueueCursor, encodeQueueCursor } from './queue-cursor.js';
import * as repo from '../orders/order.repository.js';
import { listIngredientLotsOfFills, listItemsToFill } from '../compounding/order-fill.repository.js';
import { listSignoffs } from '../compounding/signoff.repository.js';

export interface OperatorListFilters {
  status?: OrderStatus;
  clinic_id?: string;
  carrier_id?: string;
  created_from?: string;
  created_to?: string;
  q?: string;
  medication_request_id?: string;
  sort?: 'waiting' | 'newest';
  limit?: number;
  cursor?: string;
}

const isWaiting = (status: string): boolean => (operatorRepo.WAITING_STATUSES as readonly string[]).includes(status);

/**
 * GET /api/admin/medication-requests: the pharmacist's work queue. By default the orders still to
 * work (pending, processing, on_hold) oldest first, then the others newest first (`sort=newest`: all newest
 * first), keyset-paginated (stable under inserts). Each row names its clinic, patient (with date of
 * birth), prescriber and medications, and its age in working hours: two queries a page (the orders
 * with their parties, then their medications), three at the turn from waiting to finished orders.
 * Every order listed is audited as read by the operator, and so is every patient whose name is shown.
 */
export async function listOrders(
  ctx: ServiceContext & AuditedReadContext,
  query: OperatorListFilters,
  audit: AuditContext,
): Promise<Page<OperatorOrderSummaryData>> {
  const limit = query.limit ?? 50;
  const filters = queueFilters(query, ctx.config.pharmacyTimeZone);
  const page = (slice: operatorRepo.QueueSlice, count: number) =>
    operatorRepo.listQueuePage(ctx.db, ctx.dialect, filters, slice, count);

  let rows: operatorRepo.QueueRow[];
  if (query.sort === 'newest') {
    rows = await page({ part: 'all', ...(query.cursor ? { before: decodeCursor(query.cursor) } : {}) }, limit + 1);
  } else {
    const position = query.cursor ? decodeQueueCursor(query.cursor) : undefined;
    rows =
      position?.part === 'finished'
        ? []
        : await page({ part: 'waiting', ...(position ? { after: position.at } : {}) }, limit + 1);
    if (rows.length <= limit) {
      const before = position?.part === 'finished' ? { before: position.at } : {};
      rows = [...rows, ...(await page({ part: 'finished', ...before }, limit + 1 - rows.length))];
    }
  }

  const listed = rows.slice(0, limit);
  const items = await operatorRepo.listItemsOfQueue(
    ctx.db,
    listed.map((r) => r.id),
  );
  const itemsOf = new Map<string, operatorRepo.QueueItemRow[]>();
  for (const item of items) itemsOf.set(item.medication_request_id, [...(itemsOf.get(item.medication_request_id) ?? []), item]);
  const now = ctx.clock();
  const summaries = listed.map((row) =>
    toOperatorSummary(
      row,
      itemsOf.get(row.id) ?? [],
      businessHoursBetween(new Date(row.created_at), waitedUntil(row, now), ctx.config.pharmacyTimeZone),
    ),
  );
  const last = listed[listed.length - 1];
  let nextCursor: string | null = null;
  if (rows.length > limit && last) {
    const at = { createdAt: last.created_at, id: last.id };
    nextCursor =
      query.sort === 'newest'
        ? encodeCursor(at)
        : encodeQueueCursor({ part: isWaiting(last.status) ? 'waiting' : 'finished', at });
  }
  await ctx.audit.recordReads(audit, [
    ...summaries.map((r): AuditedResource => ({
      type: 'medication_request',
      id: r.medication_request_id,
      clinicId: r.clinic_id,
    })),
    ...patientsOf(summaries),
  ]);
  return { items: summaries, next_cursor: nextCursor };
}

/** An order waits from its creation until it is shipped or cancelled; one still in the pharmacy's hands, until now. */
function waitedUntil(order: operatorRepo.QueueRow, now: Date): Date {
  const end = order.shipped_at ?? order.cancelled_at;
  if (end !== null) return new Date(end);
  return isWaiting(order.status) ? now : new Date(order.updated_at);
}

/** The query's filters as the repository takes them: days as instants of the pharmacy's calendar, the search as words. */
function queueFilters(query: OperatorListFilters, timeZone: string): operatorRepo.QueueFilters {
  for (const field of ['created_from', 'created_to'] as const) {
    const value = query[field];
    if (value !== undefined && !isCalendarDate(value)) throw fieldError(field, 'must be a day of the calendar as YYYY-MM-DD');
  }
  if (query.created_from && query.created_to && query.created_to < query.created_from) {
    throw fieldError('created_to', 'must not be before created_from');
  }
  const words = (query.q ?? '').split(/\s+/).filter((word) => word !== '');
  if (words.length > QUEUE_SEARCH_MAX_WORDS) throw fieldError('q', `must hold at most ${QUEUE_SEARCH_MAX_WORDS} words`);
  return {
    ...(query.status ? { status: query.status } : {}),
    ...(query.clinic_id ? { clinicId: query.clinic_id } : {}),
    ...(query.carrier_id ? { carrierId: query.carrier_id } : {}),
    ...(query.medication_request_id ? { orderId: query.medication_request_id } : {}),
    ...(query.created_from ? { createdFrom: startOfLocalDay(query.created_from, timeZone).toISOString() } : {}),
    ...(query.created_to ? { createdBefore: startOfLocalDay(nextDate(query.created_to), timeZone).toISOString() } : {}),
    ...(words.length > 0 ? { words } : {}),
  };
}

/** One read per patient shown, however many of their orders the page lists. */
function patientsOf(orders: { patient_id: string; clinic_id: string }[]): AuditedResource[] {
  const byId = new Map(orders.map((o) => [o.patient_id, o.clinic_id]));
  return [...byId].map(([id, clinicId]) => ({ type: 'patient', id, clinicId }));
}

/**
 * GET /api/admin/medication-requests/{id}: any clinic's order in full (what the pharmacy fills), with
 * the patient's name, date of birth, sex, phone and shipping address, the prescriber's name, NPI and
 * veterinarian flag, each item's formulary entry (one query for all), the orders of its refill
 * chain, and the pharmacy its label names. Audited as reads of the order, of its
 * patient, and of the chain's other orders.
 */
export async function getOrderForOperator(
  ctx: AuditedReadContext & Pick<ServiceContext, 'config'>,
  orderId: string,
  audit: AuditContext,
): Promise<OperatorOrderDetailData> {
  const order = await repo.findOrderUnscoped(ctx.db, orderId);
  if (!order) throw notFound('Medication request not found');
  const [view, history, parties, chain, entries, items, signoffs] = await Promise.all([
    loadOrderView(ctx.db, order),
    // The partner's view names nobody; the pharmacy's names who made each change.
    repo.listHistories(ctx.db, [order.id]),
    operatorRepo.findPatientAndPrescriber(ctx.db, order),
    operatorRepo.listChain(ctx.db, order.chain_origin_id ?? order.id),
    operatorRepo.listItemEntries(ctx.db, order),
    listItemsToFill(ctx.db, order.id),
    listSignoffs(ctx.db, order.id),
  ]);
  const lots = await listIngredientLotsOfFills(
    ctx.db,
    items.flatMap((item) => (item.fill ? [item.fill.id] : [])),
  );
  // The foreign keys make this impossible; the guard tells the type checker.
  if (!parties) throw new Error(`Order ${order.id} has no patient ${order.patient_id} or practitioner in its clinic`);
  await ctx.audit.recordReads(audit, [
    { type: 'medication_request', id: order.id, clinicId: order.clinic_id },
    { type: 'patient', id: order.patient_id, clinicId: order.clinic_id },
    ...chain
      .filter((row) => row.id !== order.id)
      .map((row): AuditedResource => ({ type: 'medication_request', id: row.id, clinicId: order.clinic_id })),
  ]);
  return toOperatorDetail(view, history, parties, chain, { entries, pharmacy: ctx.config.pharmacy }, { items, lots }, signoffs);
}
