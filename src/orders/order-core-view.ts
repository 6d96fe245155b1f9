import type { DbOrTrx } from '../db/database.js';
import { fromFlag } from '../db/columns.js';
import { centsToDollars } from '../shared/money.js';
import type { Actor, OrderStatus } from './order-status.js';
import type { OrderTable, MedicationItemTable, StatusHistoryTable } from './order.tables.js';
import type { OrderCoreViewData } from './order.schemas.js';
import * as repo from './order.repository.js';
import { findRefillRequestsOfNewOrders } from './refill-request-of-order.repository.js';

/*
 * The order's core read: its items with their refill counters, its refill chain and its status
 * history, as partners read them. The rooms add their parts to it in one place
 * (fulfillment/order-view.ts): the items' fills, the hold, the shipments.
 */

/** One order as the core read it: its rows (which the rooms' parts of the read use too) and its view. */
export interface OrderCoreRead {
  order: OrderTable;
  items: MedicationItemTable[];
  history: StatusHistoryTable[];
  view: OrderCoreViewData;
}

/**
 * The refill counters of one medication of a chain, read from the chain's first prescription.
 * A do_not_refill item authorizes no refill, whatever its `refills` said.
 */
export function itemRefills(origin: MedicationItemTable): { authorized: number; used: number; remaining: number } {
  const authorized = origin.do_not_refill === 1 ? 0 : origin.refills;
  const used = origin.do_not_refill === 1 ? 0 : origin.refills_used;
  return { authorized, used, remaining: Math.max(0, authorized - used) };
}

/**
 * The chain's counters: every refill counts once against each medication that still had one, so
 * the chain has had as many refills as its most-refilled medication, and stays refillable while
 * any medication has refills left.
 */
export function chainRefills(origins: MedicationItemTable[]): { authorized: number; used: number; remaining: number } {
  const each = origins.map(itemRefills);
  const max = (values: number[]) => values.reduce((a, b) => Math.max(a, b), 0);
  return {
    authorized: max(each.map((e) => e.authorized)),
    used: max(each.map((e) => e.used)),
    remaining: max(each.map((e) => e.remaining)),
  };
}

/**
 * The core of several orders, in their order: at most four indexed queries whatever their number
 * (items, history, refill requests of refill orders, and the origin items of refill chains whose
 * first order is not among them), never one set per order; three when the caller read the items
 * already (`itemsRead`: the partner's read gets them with their fills, fulfillment/order-rows.repository.ts).
 * The prescription's id comes with the items (every order has at least one).
 */
export async function readOrderCores(
  db: DbOrTrx,
  orders: OrderTable[],
  itemsRead?: (MedicationItemTable & { medication_request_id: string })[],
): Promise<OrderCoreRead[]> {
  const ids = orders.map((o) => o.id);
  const [items, histories, refillRequests] = await Promise.all([
    itemsRead ?? repo.listItemsOfOrders(db, ids),
    repo.listHistories(db, ids),
    findRefillRequestsOfNewOrders(
      db,
      orders.filter((o) => o.refill_of !== null).map((o) => o.id),
    ),
  ]);
  const loadedIds = new Set(items.map((i) => i.id));
  const missingOriginIds = [...new Set(items.map((i) => i.origin_item_id))].filter((id) => !loadedIds.has(id));
  const origins: MedicationItemTable[] = [...items, ...(await repo.findItems(db, missingOriginIds))];
  const originById = new Map(origins.map((o) => [o.id, o]));
  const prescriptionOf = new Map(items.map((i) => [i.medication_request_id, i.prescription_id]));
  const refillRequestOf = new Map(refillRequests.map((r) => [r.new_medication_request_id, r]));
  return orders.map((order) => {
    const own = items.filter((i) => i.medication_request_id === order.id);
    const history = histories.filter((h) => h.medication_request_id === order.id);
    const view = coreView(
      order,
      own,
      history,
      originById,
      prescriptionOf.get(order.id) ?? '',
      refillRequestOf.get(order.id)?.id ?? null,
    );
    return { order, items: own, history, view };
  });
}

function coreView(
  order: OrderTable,
  items: MedicationItemTable[],
  history: StatusHistoryTable[],
  originById: Map<string, MedicationItemTable>,
  prescriptionId: string,
  refillRequestId: string | null,
): OrderCoreViewData {
  const origins = [...new Set(items.map((i) => i.origin_item_id))].flatMap((id) => {
    const origin = originById.get(id);
    return origin ? [origin] : [];
  });
  return {
    medication_request_id: order.id,
    clinic_id: order.clinic_id,
    patient_id: order.patient_id,
    practitioner_id: order.practitioner_id,
    status: order.status as OrderStatus,
    prescription_id: prescriptionId,
    is_refrigerated: fromFlag(order.is_refrigerated),
    signature_required: fromFlag(order.signature_required),
    saturday_delivery: fromFlag(order.saturday_delivery),
    shipment_group_id: order.shipment_group_id,
    medication_requests: items.map((item) => {
      const counters = itemRefills(originById.get(item.origin_item_id) ?? item);
      return {
        id: item.id,
        medication: item.medication,
        dose: item.dose,
        unit_of_measure: item.unit_of_measure,
        quantity: item.quantity,
        refills: String(item.refills),
        direction: item.direction,
        days_supply: item.days_supply,
        flavor: item.flavor,
        notes: item.notes,
        do_not_refill: fromFlag(item.do_not_refill),
        do_not_fill: fromFlag(item.do_not_fill),
        patient_contact_requested: fromFlag(item.patient_contact_requested),
        reason_for_compounding: item.reason_for_compounding,
        reason_for_compounding_additional_context: item.reason_for_compounding_additional_context,
        refills_authorized: counters.authorized,
        refills_used: counters.used,
        refills_remaining: counters.remaining,
      };
    }),
    refills: chainRefills(origins),
    shipping: {
      carrier_id: order.carrier_id,
      carrier_name: order.carrier_name,
      service_id: order.service_id,
      service_name: order.service_name,
      original_cost: centsToDollars(order.shipping_original_cents),
      total_cost: centsToDollars(order.shipping_total_cents),
      is_free_shipment: order.free_shipment_type !== null,
      free_shipment_type: order.free_shipment_type,
    },
    tracking_number: order.tracking_number,
    shipped_at: order.shipped_at,
    delivered_at: order.delivered_at,
    cancelled_at: order.cancelled_at,
    created_at: order.created_at,
    updated_at: order.updated_at,
    refill_of: order.refill_of,
    chain_origin_id: order.chain_origin_id,
    refill_request_id: refillRequestId,
    status_history: statusMoves(history).map((h) => ({
      from: h.from_status,
      to: h.to_status,
      at: h.at,
      actor: h.actor as Actor,
    })),
  };
}

/** The rows that moved the order (a hold's answers and changes stay in the same state: they are the holds' history only). */
export const statusMoves = (history: readonly StatusHistoryTable[]): StatusHistoryTable[] =>
  inLifecycleOrder(history).filter((h) => h.from_status !== h.to_status);

/**
 * An order's history rows in the order they happened: by time, then by their time-ordered ids (the
 * steps of one change may share a millisecond; a state may be entered again after a hold).
 */
export function inLifecycleOrder(history: readonly StatusHistoryTable[]): StatusHistoryTable[] {
  return [...history].sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.at < b.at ? -1 : 1));
}
