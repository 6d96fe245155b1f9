import type { DbOrTrx } from '../db/database.js';
import type { OrderAnswer } from '../orders/order-answer.js';
import { readOrderCores } from '../orders/order-core-view.js';
import type { OrderTable } from '../orders/order.tables.js';
import { holdFields } from '../holds/hold-view.js';
import type { MedicationItemFillTable } from '../compounding/compounding.tables.js';
import { listOpenHoldsOfOrders } from '../holds/order-holds.repository.js';
import { itemFillView } from '../compounding/order-fill-view.js';
import { listShipmentsWithEvents } from '../shipments/shipment.repository.js';
import { shipmentViews } from '../shipments/shipment-view.js';
import { OrderView, type OrderViewData } from './order-view.schemas.js';
import { listItemsWithFills, type ItemsAndFills } from './order-rows.repository.js';

/*
 * The order as partners read it, assembled here and nowhere else (issue 38): the core's read
 * (orders/order-core-view.ts), each item's fill (compounding), the hold and its conversation
 * (holds), the packages and their journeys (shipments). A room answers with it through the
 * OrderAnswer routes.ts hands its routes (ORDER_ANSWER), never by importing it.
 */

/** Loads everything the partner sees of an order (the one-order case of `loadOrderViews`). */
export async function loadOrderView(db: DbOrTrx, order: OrderTable, read?: ItemsAndFills): Promise<OrderViewData> {
  const [view] = await loadOrderViews(db, [order], read);
  // One order in, one view out.
  if (!view) throw new Error(`No view of order ${order.id}`);
  return view;
}

/**
 * Loads everything the partner sees of several orders, in their order: at most five indexed
 * queries whatever their number (the items with their fills in one left join; the core's history,
 * refill requests of refill orders and origin items of chains; the shipments with their events in
 * one left join), and the open holds of those on hold (a sixth, only when one is), never one set
 * per order. `read`: the items and fills already read with the order (`findOrderWithItems`, the
 * GET by id), so that they are not read again.
 */
export async function loadOrderViews(db: DbOrTrx, orders: OrderTable[], read?: ItemsAndFills): Promise<OrderViewData[]> {
  const ids = orders.map((o) => o.id);
  const rows = read ?? (await listItemsWithFills(db, ids));
  const held = orders.filter((o) => o.status === 'on_hold').map((o) => o.id);
  const [cores, shipmentsOf, openHolds] = await Promise.all([
    readOrderCores(db, orders, rows.items),
    listShipmentsWithEvents(db, ids),
    listOpenHoldsOfOrders(db, held),
  ]);
  const fillOf = new Map<string, MedicationItemFillTable>(rows.fills.map((f) => [f.medication_item_id, f]));
  return cores.map(({ order, history, view }) => ({
    ...view,
    medication_requests: view.medication_requests.map((item) => ({ ...item, fill: itemFillView(fillOf.get(item.id)) })),
    ...holdFields(
      order,
      history,
      openHolds.filter((h) => h.medication_request_id === order.id),
    ),
    shipments: shipmentViews(shipmentsOf.get(order.id) ?? [], order.carrier_name),
  }));
}

/** The order as partners read it, for the rooms' routes that answer with it (routes.ts gives it to them). */
export const ORDER_ANSWER: OrderAnswer<typeof OrderView> = { schema: OrderView, read: loadOrderView };
