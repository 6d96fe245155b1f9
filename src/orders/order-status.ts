/**
 * The fulfillment lifecycle of a medication request, without I/O:
 *
 *   pending → processing → shipped → delivered
 *   pending, processing → cancelled
 *   pending, processing → on_hold → (resumed to where it was held from) or cancelled
 *   shipped → on_hold (delivery_exception only) → shipped (resumed; never cancelled)
 *
 * A status move (`ALLOWED`) never goes backwards. A hold is not a move: it needs a reason and is
 * made by the holds (holds/place-hold.service.ts), and a resume returns the order to the status it
 * was held from (see docs/orders.md).
 */
export const ORDER_STATUSES = ['pending', 'processing', 'on_hold', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Who changed an order's status (stored in its history). */
export const ACTORS = ['operator', 'partner', 'sandbox'] as const;
export type Actor = (typeof ACTORS)[number];

const ALLOWED: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['processing', 'cancelled'],
  processing: ['shipped', 'cancelled'],
  on_hold: ['cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
};

/** The fulfillment path, in order (cancelled is a side exit, not a step). */
const FORWARD: readonly OrderStatus[] = ['pending', 'processing', 'shipped', 'delivered'];

export const isOrderStatus = (value: string): value is OrderStatus => (ORDER_STATUSES as readonly string[]).includes(value);

/** The statuses an order may be put on hold from (a held order's hold may be changed: a new reason or message). */
export const HOLDABLE_STATUSES: readonly OrderStatus[] = ['pending', 'processing', 'on_hold'];

/**
 * Whether an order in `status` may be put on hold for `reasonCode`: a shipped order takes one hold
 * only, `delivery_exception` (the carrier's problem with a package: docs/orders.md#holds), and an
 * order held from shipped keeps that reason.
 */
export const canHold = (status: OrderStatus, reasonCode?: string, heldFrom?: string | null): boolean => {
  if (status === 'shipped' || (status === 'on_hold' && heldFrom === 'shipped')) return reasonCode === SHIPPED_HOLD_REASON;
  return HOLDABLE_STATUSES.includes(status);
};

/** The one hold a shipped order can take. */
export const SHIPPED_HOLD_REASON = 'delivery_exception';

/** The statuses a resume may return an order to: the ones it may be held from. */
export const isResumeTarget = (status: string): status is 'pending' | 'processing' | 'shipped' =>
  status === 'pending' || status === 'processing' || status === 'shipped';

/** The status fields of a medication request created at `now` (an original or a refill): pending, nothing done yet. */
export function initialStatusFields(now: string) {
  return {
    status: 'pending' as OrderStatus,
    tracking_number: null,
    shipped_at: null,
    delivered_at: null,
    cancelled_at: null,
    created_at: now,
    updated_at: now,
  };
}

/** The statuses an order in `from` may move to directly. */
export const allowedNext = (from: OrderStatus): readonly OrderStatus[] => ALLOWED[from];

export const canTransition = (from: OrderStatus, to: OrderStatus): boolean => ALLOWED[from].includes(to);

/**
 * Whether an order was put on hold after it shipped (a `delivery_exception`: it is on hold and has
 * a `shipped_at`): the parcel has left, so it is only ever resumed to shipped, never cancelled.
 */
export const heldAfterShipping = (order: { status: string; shipped_at: string | null }): boolean =>
  order.status === 'on_hold' && order.shipped_at !== null;

/**
 * The statuses this order may move to now: `allowedNext` of its status, and nothing for an order
 * held after it shipped. The server refuses any other move (orders/order-transition.ts), and the
 * console offers these only, so that no button ends in a 409 (issue 39, item 11).
 */
export const movesOf = (order: { status: OrderStatus; shipped_at: string | null }): readonly OrderStatus[] =>
  heldAfterShipping(order) ? [] : allowedNext(order.status);

/** delivered and cancelled are final. */
export const isFinal = (status: OrderStatus): boolean => ALLOWED[status].length === 0;

/** The next step of the fulfillment path, or null from a final state. */
export function nextStatus(from: OrderStatus): OrderStatus | null {
  const index = FORWARD.indexOf(from);
  if (index < 0 || index === FORWARD.length - 1) return null;
  return FORWARD[index + 1] ?? null;
}

/**
 * The legal steps from `from` to `to` (excluding `from`, including `to`), or null when `to` cannot
 * be reached: `pending` → `shipped` is `[processing, shipped]`; `processing` → `cancelled` is `[cancelled]`.
 */
export function pathTo(from: OrderStatus, to: OrderStatus): OrderStatus[] | null {
  if (canTransition(from, to)) return [to];
  const steps: OrderStatus[] = [];
  let current: OrderStatus = from;
  for (;;) {
    const next = nextStatus(current);
    if (next === null) return null;
    steps.push(next);
    if (next === to) return steps;
    current = next;
  }
}

/** Refills may be requested of shipped and delivered orders only (the spec's rule 1). */
export const isRefillable = (status: OrderStatus): boolean => status === 'shipped' || status === 'delivered';

/** The message of a refused transition: names the current and the requested state. */
export function illegalTransitionMessage(from: OrderStatus, to: OrderStatus): string {
  if (to === 'on_hold')
    return `Cannot change the medication request from ${from} to on_hold with a status change: put it on hold with a reason (POST /api/admin/medication-requests/{id}/hold)`;
  if (from === 'on_hold')
    return `Cannot change the medication request from on_hold to ${to}: an order on hold is resumed (POST /api/admin/medication-requests/{id}/resume) or cancelled`;
  const allowed = ALLOWED[from];
  const tail = allowed.length === 0 ? `${from} is a final state` : `from ${from} it can only become ${allowed.join(' or ')}`;
  return `Cannot change the medication request from ${from} to ${to}: ${tail}`;
}
