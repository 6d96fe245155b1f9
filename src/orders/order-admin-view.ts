import { centsToDollars } from '../shared/money.js';
import type { OrderStatus } from './order-status.js';
import type { ChainRow, QueueRow, ShippingParty } from './order-admin.repository.js';
import type { AdminOrderDetailData, AdminOrderSummaryData } from './order-admin.schemas.js';
import type { OrderViewData } from './order.schemas.js';
import type { Actor } from './order-status.js';
import type { StatusHistoryTable } from './order.tables.js';
import { inLifecycleOrder } from './order-view.js';

/** How the console writes a patient's name: first, middle (when there is one), last. */
export const fullName = (first: string, middle: string | null, last: string): string =>
  [first, middle, last].filter((part) => part !== null && part !== '').join(' ');

/** A row of the operator's queue. */
export function toAdminSummary(order: QueueRow, itemCount: number): AdminOrderSummaryData {
  return {
    medication_request_id: order.id,
    clinic_id: order.clinic_id,
    clinic_name: order.clinic_name,
    patient_id: order.patient_id,
    patient_name: fullName(order.patient_first_name, order.patient_middle_name, order.patient_last_name),
    practitioner_id: order.practitioner_id,
    status: order.status as OrderStatus,
    item_count: itemCount,
    carrier_id: order.carrier_id,
    carrier_name: order.carrier_name,
    service_id: order.service_id,
    service_name: order.service_name,
    total_cost: centsToDollars(order.shipping_total_cents),
    tracking_number: order.tracking_number,
    refill_of: order.refill_of,
    created_at: order.created_at,
    updated_at: order.updated_at,
  };
}

/** The order as the pharmacy fills it: the partner's view, the clinic's name, whom it ships to, and its chain. */
export function toAdminDetail(
  view: OrderViewData,
  history: StatusHistoryTable[],
  party: ShippingParty,
  chain: ChainRow[],
): AdminOrderDetailData {
  const { address_line_1, city, state, postal_code } = party;
  return {
    ...view,
    status_history: inLifecycleOrder(history).map((h) => ({
      from: h.from_status,
      to: h.to_status,
      at: h.at,
      actor: h.actor as Actor,
      actor_id: h.actor_id,
      actor_name: h.actor_name,
    })),
    clinic_name: party.clinic_name,
    patient: {
      patient_id: view.patient_id,
      first_name: party.first_name,
      middle_name: party.middle_name,
      last_name: party.last_name,
      shipping_address:
        address_line_1 !== null && city !== null && state !== null && postal_code !== null
          ? { address_line_1, address_line_2: party.address_line_2, city, state, postal_code }
          : null,
    },
    refill_chain: chain.map((row) => ({
      medication_request_id: row.id,
      status: row.status as OrderStatus,
      refill_of: row.refill_of,
      created_at: row.created_at,
    })),
  };
}
