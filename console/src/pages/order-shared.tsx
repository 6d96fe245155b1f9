/**
 * What the operator API answers about orders (src/orders/order-admin.schemas.ts),
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
  patient_dob: string;
  practitioner_name: string;
  practitioner_npi: string;
  practitioner_is_veterinarian: boolean;
  status: OrderStatus;
  item_count: number;
  medications: { medication: string; dose: string; unit_of_measure: string | null; quantity: number }[];
  age_business_hours: number;
  carrier_name: string;
  service_name: string;
  tracking_number: string | null;
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
  flavor: string | null;
  notes: string | null;
  do_not_fill: boolean;
  do_not_refill: boolean;
  patient_contact_requested: boolean;
  reason_for_compounding: string | null;
  reason_for_compounding_additional_context: string | null;
  refills_remaining: number;
}

/** A step of the order's history; `actor_name` names the staff member when the operator API knows who. */
export interface HistoryStep {
  from: string | null;
  to: string;
  at: string;
  actor: string;
  actor_name?: string | null;
}

/** The order as POST /api/admin/medication-requests/{id}/status answers it (the partner view). */
export interface OrderView {
  medication_request_id: string;
  clinic_id: string;
  status: OrderStatus;
  is_refrigerated: boolean;
  shipment_group_id: string | null;
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
  status_history: HistoryStep[];
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
    dob: string;
    species: string;
    phone: string | null;
    shipping_address: {
      address_line_1: string;
      address_line_2: string | null;
      city: string;
      state: string;
      postal_code: string;
    } | null;
  };
  practitioner: {
    first_name: string;
    last_name: string;
    npi: string;
    is_veterinarian: boolean;
    phone: string | null;
  };
  refill_chain: ChainEntry[];
}

/** The order after a status change: the API's answer, with what only the page's first read had. */
export function withNewState(order: OrderDetail, answer: OrderView, signedIn: string): OrderDetail {
  // The answer is the partner's view, whose history names nobody: steps already shown keep their
  // names, and a new step by the pharmacy is the signed-in staff member's (this page made it).
  const named = new Map(order.status_history.map((step) => [`${step.from ?? ''}>${step.to}@${step.at}`, step.actor_name]));
  const status_history = answer.status_history.map((step) => {
    const known = named.get(`${step.from ?? ''}>${step.to}@${step.at}`);
    return { ...step, actor_name: known !== undefined ? known : step.actor === 'operator' ? signedIn : null };
  });
  return {
    ...order,
    ...answer,
    status_history,
    refill_chain: order.refill_chain.map((entry) =>
      entry.medication_request_id === answer.medication_request_id ? { ...entry, status: answer.status } : entry,
    ),
  };
}

/** A calendar date (`1980-12-09`) as staff read it, whatever the browser's time zone: Dec 9, 1980. */
const DAY = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
export const calendarDate = (date: string): string => {
  const at = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? date : DAY.format(at);
};

/** What an order holds, on one line: Semaglutide 0.25mg × 1. */
export const medicationLine = (item: { medication: string; dose: string; quantity: number }): string =>
  `${item.medication} ${item.dose} × ${item.quantity}`;

/**
 * The short reference of an order: the last 8 characters of its id. A UUIDv7 starts with its
 * creation time (orders of the same minute share their first 8 characters); its end is random.
 */
export const shortId = (id: string): string => id.slice(-8);

const DOLLARS = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
export const dollars = (amount: number): string => DOLLARS.format(amount);

export function StatusBadge({ status }: { status: OrderStatus }) {
  return <span class={`status status-${status}`}>{status}</span>;
}
