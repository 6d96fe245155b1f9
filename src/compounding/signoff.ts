import type { OrderStatus } from '../orders/order-status.js';

/**
 * The pharmacist's two sign-offs of an order (issue 30, item 5; docs/compounding.md#sign-offs),
 * without I/O: which exist, when each may be given, and which a move needs.
 */
export const SIGNOFF_KINDS = ['prescription_review', 'product_check'] as const;
export type SignoffKind = (typeof SIGNOFF_KINDS)[number];

/** What each sign-off says, as the console and the errors name it. */
export const SIGNOFF_LABELS: Readonly<Record<SignoffKind, string>> = {
  prescription_review: 'prescription review',
  product_check: 'product check',
};

/**
 * The statuses an order may be signed off in: the prescription's review before it ships (once it
 * is `processing` it may still be recorded, for an order moved when sign-offs were not required);
 * the product's check once the pharmacy works the order (`processing`, or on hold from there), before
 * it ships. A shipped, delivered or cancelled order takes no sign-off.
 */
const SIGNABLE: Readonly<Record<SignoffKind, readonly OrderStatus[]>> = {
  prescription_review: ['pending', 'processing', 'on_hold'],
  product_check: ['processing', 'on_hold'],
};

/** Why `kind` cannot be signed off for an order in `status` (held from `heldFrom`), or null when it can. */
export function signoffRefusal(kind: SignoffKind, status: OrderStatus, heldFrom: string | null): string | null {
  if (!SIGNABLE[kind].includes(status)) {
    return kind === 'product_check' && status === 'pending'
      ? 'is pending: the product is checked once the order is processing'
      : `is ${status}: a ${SIGNOFF_LABELS[kind]} is signed before the order ships`;
  }
  if (kind === 'product_check' && status === 'on_hold' && heldFrom !== 'processing') {
    return 'is on hold from pending: the product is checked once the order is processing';
  }
  return null;
}

/** The sign-off a move to `to` needs (when sign-offs are required): the review before `processing`, the check before `shipped`. */
export function signoffNeededFor(to: OrderStatus): SignoffKind | null {
  if (to === 'processing') return 'prescription_review';
  if (to === 'shipped') return 'product_check';
  return null;
}
