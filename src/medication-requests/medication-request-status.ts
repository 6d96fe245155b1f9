/**
 * The fulfillment lifecycle of a medication request, without I/O:
 *
 *   pending → processing → shipped → delivered
 *   pending, processing → cancelled
 *
 * Nothing else is allowed; an order never moves backwards (see docs/orders.md).
 */
export const MEDICATION_REQUEST_STATUSES = ['pending', 'processing', 'shipped', 'delivered', 'cancelled'] as const;
export type MedicationRequestStatus = (typeof MEDICATION_REQUEST_STATUSES)[number];

/** Who changed an order's status (stored in its history). */
export const ACTORS = ['operator', 'partner', 'sandbox'] as const;
export type Actor = (typeof ACTORS)[number];

const ALLOWED: Readonly<Record<MedicationRequestStatus, readonly MedicationRequestStatus[]>> = {
  pending: ['processing', 'cancelled'],
  processing: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
};

/** The fulfillment path, in order (cancelled is a side exit, not a step). */
const FORWARD: readonly MedicationRequestStatus[] = ['pending', 'processing', 'shipped', 'delivered'];

/** Position in the lifecycle (cancelled last): the order in which an order can enter the states. */
export const statusRank = (status: string): number => (MEDICATION_REQUEST_STATUSES as readonly string[]).indexOf(status);

export const isMedicationRequestStatus = (value: string): value is MedicationRequestStatus =>
  (MEDICATION_REQUEST_STATUSES as readonly string[]).includes(value);

/** The status fields of a medication request created at `now` (an original or a refill): pending, nothing done yet. */
export function initialStatusFields(now: string) {
  return {
    status: 'pending' as MedicationRequestStatus,
    tracking_number: null,
    shipped_at: null,
    delivered_at: null,
    cancelled_at: null,
    created_at: now,
    updated_at: now,
  };
}

/** The statuses an order in `from` may move to directly. */
export const allowedNext = (from: MedicationRequestStatus): readonly MedicationRequestStatus[] => ALLOWED[from];

export const canTransition = (from: MedicationRequestStatus, to: MedicationRequestStatus): boolean => ALLOWED[from].includes(to);

/** delivered and cancelled are final. */
export const isFinal = (status: MedicationRequestStatus): boolean => ALLOWED[status].length === 0;

/** The next step of the fulfillment path, or null from a final state. */
export function nextStatus(from: MedicationRequestStatus): MedicationRequestStatus | null {
  const index = FORWARD.indexOf(from);
  if (index < 0 || index === FORWARD.length - 1) return null;
  return FORWARD[index + 1] ?? null;
}

/**
 * The legal steps from `from` to `to` (excluding `from`, including `to`), or null when `to` cannot
 * be reached: `pending` → `shipped` is `[processing, shipped]`; `processing` → `cancelled` is `[cancelled]`.
 */
export function pathTo(from: MedicationRequestStatus, to: MedicationRequestStatus): MedicationRequestStatus[] | null {
  if (canTransition(from, to)) return [to];
  const steps: MedicationRequestStatus[] = [];
  let current: MedicationRequestStatus = from;
  for (;;) {
    const next = nextStatus(current);
    if (next === null) return null;
    steps.push(next);
    if (next === to) return steps;
    current = next;
  }
}

/** Refills may be requested of shipped and delivered orders only (the spec's rule 1). */
export const isRefillable = (status: MedicationRequestStatus): boolean => status === 'shipped' || status === 'delivered';

/** The message of a refused transition: names the current and the requested state. */
export function illegalTransitionMessage(from: MedicationRequestStatus, to: MedicationRequestStatus): string {
  const allowed = ALLOWED[from];
  const tail = allowed.length === 0 ? `${from} is a final state` : `from ${from} it can only become ${allowed.join(' or ')}`;
  return `Cannot change the medication request from ${from} to ${to}: ${tail}`;
}
