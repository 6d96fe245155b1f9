/**
 * What the operator API answers about orders (src/medication-requests/medication-request-admin.schemas.ts),
 * as far as the Orders pages use it, and how they write it.
 */
import { ORDER_STATUSES, type OrderStatus } from '../../../src/orders/order-status.js';

export { ORDER_STATUSES, type OrderStatus };

/** A row of GET /api/admin/medication-requests. */
export interface QueueItem {
  medication_request_id: string;
  clinic_id: string;
  clinic_name: string;
  patient_name: string;
  status: OrderStatus;
  item_count: number;
  carrier_name: string;
  service_name: string;
  created_at: string;
}

export interface OrderItem {
  medication: string;
  dose: string;
  unit_of_measure: string | null;
  quantity: number;
  refills: string;
  direction: string;
  days_supply: number | null;
  notes: string | null;
  do_not_fill: boolean;
  refills_remaining: number;
}

/** The order as POST /api/admin/medication-requests/{id}/status answers it (the partner view). */
export interface OrderView {
  medication_request_id: string;
  clinic_id: string;
  status: OrderStatus;
  is_refrigerated: boolean;
  medication_requests: OrderItem[];
  shipping: {
    carrier_name: string;
    service_name: string;
    original_cost: number;
    total_cost: number;
    is_free_shipment: boolean;
  };
  tracking_number: string | null;
  shipped_at: string | null;
  delivered_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
  status_history: { from: string | null; to: string; at: string; actor: string }[];
}

export interface ChainEntry {
  medication_request_id: string;
  status: OrderStatus;
  refill_of: string | null;
  created_at: string;
}

/** GET /api/admin/medication-requests/{id}: the view, and whom it ships to, and its refill chain. */
export interface OrderDetail extends OrderView {
  clinic_name: string;
  patient: {
    first_name: string;
    middle_name: string | null;
    last_name: string;
    shipping_address: {
      address_line_1: string;
      address_line_2: string | null;
      city: string;
      state: string;
      postal_code: string;
    } | null;
  };
  refill_chain: ChainEntry[];
}

/** The order after a status change: the API's answer, with what only the page's first read had. */
export function withNewState(order: OrderDetail, answer: OrderView): OrderDetail {
  return {
    ...order,
    ...answer,
    refill_chain: order.refill_chain.map((entry) =>
      entry.medication_request_id === answer.medication_request_id ? { ...entry, status: answer.status } : entry,
    ),
  };
}

const DOLLARS = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
export const dollars = (amount: number): string => DOLLARS.format(amount);

export function StatusBadge({ status }: { status: OrderStatus }) {
  return <span class={`status status-${status}`}>{status}</span>;
}
