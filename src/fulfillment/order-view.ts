import type { DbOrTrx } from '../db/database.js';
import type { OrderAnswer } from '../orders/order-answer.js';
import { readOrderCores } from '../orders/order-core-view.js';
import type { OrderTable } from '../orders/order.tables.js';
import { holdFields } from '../holds/hold-view.js';
import { listOpenHoldsOfOrders } from '../holds/order-holds.repository.js';
import { listFillsOfOrders } from '../compounding/order-fill.repository.js';
import { itemFillView } from '../compounding/order-fill-view.js';
import { listShipmentsWithEvents } from '../shipments/shipment.repository.js';
import { shipmentViews } from '../shipments/shipment-view.js';
import { OrderView, type OrderViewData } from './order-view.schemas.js';

/*
 * The order as partners read it, assembled here and nowhere else (issue 38): the core's read
 * (orders/order-core-view.ts), each item's fill (compounding), the hold and its conversation
 * (holds), the packages and their journeys (shipments). A room answers with it through the
 * OrderAnswer routes.ts hands its routes (ORDER_ANSWER), never by importing it.
 */

/** Loads everything the partner sees of an order (the one-order case of `loadOrderViews`). */
export async function loadOrderView(db: DbOrTrx, order: OrderTable): Promise<OrderViewData> {
  const [view] = await loadOrderViews(db, [order]);
  // One order in, one view out.
  if (!view) throw new Error(`No view of order ${order.id}`);
  return view;
}

/**
 * Loads everything the partner sees of several orders, in their order: at most seven indexed
 * queries whatever their number (the core's four: items, history, refill requests of refill
 * orders, the origin items of chains; the items' fills; the shipments with their events in one
 * left join), and the open holds of those on hold (a seventh, only when one is), never one set per order.
 */
export async function loadOrderViews(db: DbOrTrx, orders: OrderTable[]): Promise<OrderViewData[]> {
  const ids = orders.map((o) => o.id);
  const held = orders.filter((o) => o.status === 'on_hold').map((o) => o.id);
  const [cores, fills, shipmentsOf, openHolds] = await Promise.all([
    readOrderCores(db, orders),
    listFillsOfOrders(db, ids),
    listShipmentsWithEvents(db, ids),
    listOpenHoldsOfOrders(db, held),
  ]);
  const fillOf = new Map(fills.map((f) => [f.medication_item_id, f]));
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
