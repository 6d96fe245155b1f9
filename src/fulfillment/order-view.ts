import type { DbOrTrx } from '../db/database.js';
import { fromFlag } from '../db/columns.js';
import { centsToDollars } from '../shared/money.js';
import type { Actor, OrderStatus } from '../orders/order-status.js';
import { holdReasonOf, type WaitingOn } from '../holds/hold-reasons.js';
import type { OrderTable, MedicationItemTable, StatusHistoryTable } from '../orders/order.tables.js';
import type { OrderViewData } from '../orders/order.schemas.js';
import * as repo from '../orders/order.repository.js';
import { findRefillRequestsOfNewOrders } from '../orders/refill-request-of-order.repository.js';
import { listFillsOfOrders } from '../compounding/order-fill.repository.js';
import type { MedicationItemFillTable } from '../orders/order.tables.js';
import type { ItemFillData } from '../compounding/order-fill.schemas.js';
import type { Storage } from '../medications/beyond-use.js';
import { listShipmentsWithEvents, type ShipmentWithEvents } from '../shipments/shipment.repository.js';
import { trackingUrlOf } from '../shipments/shipment-changes.js';
import type { ShipmentStatus } from '../shipping/shipment-status.js';

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

/** Loads everything the partner sees of an order (the one-order case of `loadOrderViews`). */
export async function loadOrderView(db: DbOrTrx, order: OrderTable): Promise<OrderViewData> {
  const [view] = await loadOrderViews(db, [order]);
  // One order in, one view out.
  if (!view) throw new Error(`No view of order ${order.id}`);
  return view;
}

/**
 * Loads everything the partner sees of several orders, in their order: at most six indexed
 * queries whatever their number (items, history, the items' fills, refill requests of refill
 * orders, the shipments with their events in one left join, and the origin items of refill chains whose first order is not among them), never one
 * set per order. The
 * prescription's id comes with the items (every order has at least one).
 */
export async function loadOrderViews(db: DbOrTrx, orders: OrderTable[]): Promise<OrderViewData[]> {
  const ids = orders.map((o) => o.id);
  const [items, histories, fills, refillRequests, shipmentsOf] = await Promise.all([
    repo.listItemsOfOrders(db, ids),
    repo.listHistories(db, ids),
    listFillsOfOrders(db, ids),
    findRefillRequestsOfNewOrders(
      db,
      orders.filter((o) => o.refill_of !== null).map((o) => o.id),
    ),
    listShipmentsWithEvents(db, ids),
  ]);
  const loadedIds = new Set(items.map((i) => i.id));
  const missingOriginIds = [...new Set(items.map((i) => i.origin_item_id))].filter((id) => !loadedIds.has(id));
  const origins: MedicationItemTable[] = [...items, ...(await repo.findItems(db, missingOriginIds))];
  const originById = new Map(origins.map((o) => [o.id, o]));
  const prescriptionOf = new Map(items.map((i) => [i.medication_request_id, i.prescription_id]));
  const refillRequestOf = new Map(refillRequests.map((r) => [r.new_medication_request_id, r]));
  const fillOf = new Map(fills.map((f) => [f.medication_item_id, f]));
  return orders.map((order) =>
    toView(
      order,
      items.filter((i) => i.medication_request_id === order.id),
      histories.filter((h) => h.medication_request_id === order.id),
      originById,
      prescriptionOf.get(order.id) ?? '',
      refillRequestOf.get(order.id)?.id ?? null,
      fillOf,
      shipmentsOf.get(order.id) ?? [],
    ),
  );
}

function toView(
  order: OrderTable,
  items: MedicationItemTable[],
  history: StatusHistoryTable[],
  originById: Map<string, MedicationItemTable>,
  prescriptionId: string,
  refillRequestId: string | null,
  fillOf: Map<string, MedicationItemFillTable>,
  shipments: readonly ShipmentWithEvents[],
): OrderViewData {
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
        fill: fillView(fillOf.get(item.id)),
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
    ...holdFields(order, history),
    shipments: shipments.map(({ shipment, events }) => ({
      shipment_id: shipment.id,
      carrier_id: shipment.carrier_id,
      service_id: shipment.service_id,
      tracking_number: shipment.tracking_number,
      tracking_url: trackingUrlOf(shipment, order.carrier_name),
      status: shipment.status as ShipmentStatus,
      estimated_delivery_date: shipment.estimated_delivery_date,
      events: events.map((e) => ({
        status: e.status as ShipmentStatus,
        occurred_at: e.occurred_at,
        location: e.location,
        description: e.description,
      })),
    })),
  };
}

/** What a partner reads of an item's fill (null before the fill). */
const fillView = (fill: MedicationItemFillTable | undefined): ItemFillData | null =>
  fill === undefined
    ? null
    : { lot_number: fill.lot_number, beyond_use_date: fill.beyond_use_date, storage: fill.storage as Storage | null };

type HoldFields = Pick<OrderViewData, 'hold' | 'hold_history' | 'shipping_address'>;

/** The hold, its conversation and the order's own address, as a partner reads them. */
export function holdFields(order: OrderTable, history: readonly StatusHistoryTable[]): HoldFields {
  const code = order.hold_reason_code ?? null;
  return {
    hold:
      order.status === 'on_hold' && code !== null
        ? {
            reason_code: code,
            reason: holdReasonOf(code)?.reason ?? code,
            message: order.hold_message ?? '',
            waiting_on: (order.hold_waiting_on ?? 'pharmacy') as WaitingOn,
            since: order.hold_since ?? order.updated_at,
          }
        : null,
    hold_history: holdSteps(history).map(holdEntry),
    shipping_address:
      order.ship_to_address_line1 && order.ship_to_city && order.ship_to_state && order.ship_to_postal_code
        ? {
            addressLine1: order.ship_to_address_line1,
            addressLine2: order.ship_to_address_line2 ?? null,
            city: order.ship_to_city,
            state: order.ship_to_state,
            postalCode: order.ship_to_postal_code,
          }
        : null,
  };
}

/** One step of the holds' conversation as a partner reads it. */
export const holdEntry = (h: StatusHistoryTable): OrderViewData['hold_history'][number] => ({
  kind: h.kind as 'hold' | 'answer' | 'resume',
  reason_code: h.reason_code ?? null,
  waiting_on: (h.waiting_on ?? null) as WaitingOn | null,
  message: h.message ?? null,
  actor: h.actor as Actor,
  at: h.at,
});

/** The rows that moved the order (a hold's answers and changes stay in the same state: they are `hold_history` only). */
export const statusMoves = (history: readonly StatusHistoryTable[]): StatusHistoryTable[] =>
  inLifecycleOrder(history).filter((h) => h.from_status !== h.to_status);

/** The rows of the holds' conversation: holds, answers, resumes. */
export const holdSteps = (history: readonly StatusHistoryTable[]): StatusHistoryTable[] =>
  inLifecycleOrder(history).filter((h) => h.kind !== null && h.kind !== undefined);

/**
 * An order's history rows in the order they happened: by time, then by their time-ordered ids (the
 * steps of one change may share a millisecond; a state may be entered again after a hold).
 */
export function inLifecycleOrder(history: readonly StatusHistoryTable[]): StatusHistoryTable[] {
  return [...history].sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.at < b.at ? -1 : 1));
}
