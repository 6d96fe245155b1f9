/**
 * What the operator API answers about orders (generated from src/fulfillment/order-operator.schemas.ts by
 * way of the OpenAPI document), and how the Orders pages write it.
 */
import { ORDER_STATUSES, type OrderStatus } from '../../../src/orders/order-status.js';
import { useState } from 'preact/hooks';
import { api, type Session } from '../api';
import type { OperatorData } from '../api-types';
import { statusWord } from '../components/labels';
import { useResource } from '../components/use-resource';

export { ORDER_STATUSES, type OrderStatus };

/** A row of GET /api/admin/medication-requests. */
export type QueueItem = OperatorData<'listOperatorMedicationRequests'>['items'][number];

/** The order as POST /api/admin/medication-requests/{id}/status answers it (the partner view). */
export type OrderView = OperatorData<'updateOperatorMedicationRequestStatus'>;

/** GET /api/admin/medication-requests/{id}: the view, and whom it ships to, and its refill chain. */
export type OrderDetail = OperatorData<'getOperatorMedicationRequest'>;

export type OrderItem = OrderDetail['medication_requests'][number];

/** A step of the order's history; `actor_name` names the staff member when the operator API knows who. */
export type HistoryStep = OrderDetail['status_history'][number];

/** A step of the order's holds: a hold, a partner's answer, a resume, naming who. */
export type HoldStep = OrderDetail['hold_history'][number];

/** The catalog of hold reasons (GET /api/admin/hold-reasons): the console hard-codes none. */
export const useHoldReasons = () => useResource('hold-reasons', () => api('GET', '/api/admin/hold-reasons'));

/**
 * The order after a status change: the API's answer, with what only the page's first read had (who
 * made each step, the items' formulary entries, the pharmacy). `reason`: the cancellation's, when
 * this page just cancelled the order.
 */
export function withNewState(
  order: OrderDetail,
  answer: OrderView,
  signedIn: Pick<Session, 'staff_id' | 'name'>,
  reason: string | null = null,
): OrderDetail {
  // The answer is the partner's view, whose history names nobody: steps already shown keep who made
  // them, and a new step by the pharmacy is the signed-in staff member's (this page made it).
  const stepKey = (step: Pick<HistoryStep, 'from' | 'to' | 'at'>) => `${step.from ?? ''}>${step.to}@${step.at}`;
  const named = new Map(order.status_history.map((step) => [stepKey(step), step]));
  const status_history = answer.status_history.map((step) => {
    const known = named.get(stepKey(step));
    if (known) return { ...step, actor_id: known.actor_id, actor_name: known.actor_name, reason: known.reason };
    const ours = step.actor === 'operator';
    return {
      ...step,
      actor_id: ours ? signedIn.staff_id : null,
      actor_name: ours ? signedIn.name : null,
      reason: ours && step.to === 'cancelled' ? reason : null,
    };
  });
  const holdKey = (step: Pick<HoldStep, 'kind' | 'at' | 'hold_id'>) => `${step.kind}@${step.at}@${step.hold_id ?? ''}`;
  const namedHolds = new Map(order.hold_history.map((step) => [holdKey(step), step]));
  const hold_history = answer.hold_history.map((step) => {
    const known = namedHolds.get(holdKey(step));
    if (known) return { ...step, actor_id: known.actor_id, actor_name: known.actor_name, override_reason: known.override_reason };
    const ours = step.actor === 'operator';
    // A new override's reason is the pharmacy's only: the page reads the order again for it (order.tsx).
    return { ...step, actor_id: ours ? signedIn.staff_id : null, actor_name: ours ? signedIn.name : null, override_reason: null };
  });
  // The answer's items are the partner's: each keeps what only the pharmacy reads (its formula, the
  // whole fill), and a fill the answer shows first (a development server fills on shipping) is read
  // again by the page (`hasNewFill`).
  const fresh = new Map(answer.medication_requests.map((item) => [item.id, item]));
  const medication_requests = order.medication_requests.map((known) => {
    const item = fresh.get(known.id);
    return item ? { ...known, ...item, fill: known.fill } : known;
  });
  return {
    ...order,
    ...answer,
    medication_requests,
    status_history,
    hold_history,
    refill_chain: order.refill_chain.map((entry) =>
      entry.medication_request_id === answer.medication_request_id ? { ...entry, status: answer.status } : entry,
    ),
  };
}

/** The order as one action left it: its status and when it last changed. */
type OrderState = Pick<OrderView, 'status' | 'updated_at'>;
const stateOf = (order: OrderState): string => `${order.status}@${order.updated_at}`;

/**
 * A notice of what an action did to the order ("Resumed: …", "The order is now shipped."), shown
 * only while the order is as that action left it: the next action, this panel's or another's (a
 * status move, a hold, a fill, a re-read), changes the order and the notice goes (issue 39, item 11).
 * Returns the notice to show, and the setter taking the API's answer and the text.
 */
export function useOrderNotice(order: OrderState): [string | null, (answer: OrderState, text: string | null) => void] {
  const [notice, setNotice] = useState<{ text: string; state: string } | null>(null);
  const shown = notice !== null && notice.state === stateOf(order) ? notice.text : null;
  const show = (answer: OrderState, text: string | null) => setNotice(text === null ? null : { text, state: stateOf(answer) });
  return [shown, show];
}

/** True when the answer shows a fill the page does not have yet: the page reads the order again. */
export const hasNewFill = (order: OrderDetail, answer: OrderView): boolean =>
  answer.medication_requests.some(
    (item) => item.fill !== null && order.medication_requests.find((known) => known.id === item.id)?.fill === null,
  );

/** A calendar date (`1980-12-09`) as staff read it, whatever the browser's time zone: Dec 9, 1980. */
const DAY = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
export const calendarDate = (date: string): string => {
  const at = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? date : DAY.format(at);
};

/** How much is dispensed, with its unit: `150 mL`, `30 capsule` (just the number for an item stored without one). */
export const quantityText = (item: Pick<OrderItem, 'quantity' | 'unit_of_measure'>): string =>
  item.unit_of_measure ? `${item.quantity} ${item.unit_of_measure}` : String(item.quantity);

/** What an order holds, on one line: Semaglutide 0.25mg × 2 mL. */
export const medicationLine = (item: Pick<OrderItem, 'medication' | 'dose' | 'quantity' | 'unit_of_measure'>): string =>
  `${item.medication} ${item.dose} × ${quantityText(item)}`;

/**
 * The short reference of an order: the last 8 characters of its id. A UUIDv7 starts with its
 * creation time (orders of the same minute share their first 8 characters); its end is random.
 */
export const shortId = (id: string): string => id.slice(-8);

/** Working hours as the queues show them: 41.5 h. */
export const hours = (value: number): string => `${value.toLocaleString('en-US', { maximumFractionDigits: 1 })} h`;

const DOLLARS = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
export const dollars = (amount: number): string => DOLLARS.format(amount);

export function StatusBadge({ status }: { status: OrderStatus }) {
  return <span class={`status status-${status}`}>{statusWord(status)}</span>;
}

/** Who made a step of an order's history: by name when the operator API knows it, with the kind of actor. */
export function ActorName({ step }: { step: { actor: string; actor_name: string | null } }) {
  if (!step.actor_name) return <>{step.actor}</>;
  return (
    <>
      {step.actor_name} <span class="muted">({step.actor})</span>
    </>
  );
}
