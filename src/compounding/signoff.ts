import type { OrderStatus } from '../orders/order-status.js';

/**
 * The pharmacist's two sign-offs of an order (issues 30 and 39; docs/compounding.md#sign-offs),
 * without I/O: which exist, what a review records, when each may be given, and which a move needs.
 */
export const SIGNOFF_KINDS = ['prescription_review', 'final_check'] as const;
export type SignoffKind = (typeof SIGNOFF_KINDS)[number];

/**
 * Names a body may still give, and the kind each means: `product_check` was the final check's name
 * in 1.2.0 (stored rows were renamed by migration 033). Answers always say `final_check`.
 */
export const SIGNOFF_KIND_ALIASES = { product_check: 'final_check' } as const satisfies Record<string, SignoffKind>;
export type SignoffKindInput = SignoffKind | keyof typeof SIGNOFF_KIND_ALIASES;
export const SIGNOFF_KIND_INPUTS: readonly SignoffKindInput[] = [
  ...SIGNOFF_KINDS,
  ...(Object.keys(SIGNOFF_KIND_ALIASES) as (keyof typeof SIGNOFF_KIND_ALIASES)[]),
];

/** The kind a body's `kind` means: itself, or what its old name stands for. */
export const signoffKindOf = (given: SignoffKindInput): SignoffKind =>
  given in SIGNOFF_KIND_ALIASES ? SIGNOFF_KIND_ALIASES[given as keyof typeof SIGNOFF_KIND_ALIASES] : (given as SignoffKind);

/** What a prescription review checks, each required: the patient's allergies, duplicate therapy, the dose. */
export const REVIEW_CHECKS = ['allergies', 'duplicate_therapy', 'dose'] as const;
export type ReviewCheck = (typeof REVIEW_CHECKS)[number];

/** What each sign-off says, as the console and the errors name it. */
export const SIGNOFF_LABELS: Readonly<Record<SignoffKind, string>> = {
  prescription_review: 'prescription review',
  final_check: 'final check',
};

/**
 * The statuses an order may be signed off in: the prescription's review before it ships (once it
 * is `processing` it may still be recorded, for an order moved when sign-offs were not required);
 * the final check once the pharmacy works the order (`processing`, or on hold from there), before it
 * ships, and only once every item is filled (signoffs' service reads the fills). A shipped,
 * delivered or cancelled order takes no sign-off.
 */
const SIGNABLE: Readonly<Record<SignoffKind, readonly OrderStatus[]>> = {
  prescription_review: ['pending', 'processing', 'on_hold'],
  final_check: ['processing', 'on_hold'],
};

/** Why `kind` cannot be signed off for an order in `status` (held from `heldFrom`), or null when it can. */
export function signoffRefusal(kind: SignoffKind, status: OrderStatus, heldFrom: string | null): string | null {
  if (!SIGNABLE[kind].includes(status)) {
    return kind === 'final_check' && status === 'pending'
      ? 'is pending: the final check is given once the order is processing and filled'
      : `is ${status}: a ${SIGNOFF_LABELS[kind]} is signed before the order ships`;
  }
  if (kind === 'final_check' && status === 'on_hold' && heldFrom !== 'processing') {
    return 'is on hold from pending: the final check is given once the order is processing and filled';
  }
  return null;
}

/**
 * What is wrong with a body's `checked` for `kind`, or null: a review names each of the three checks
 * (in any order, each once); a final check takes none.
 */
export function checkedProblem(kind: SignoffKind, checked: readonly string[] | undefined): string | null {
  if (kind === 'final_check') {
    return checked === undefined ? null : 'is only for a prescription_review: a final check records no list';
  }
  const missing = REVIEW_CHECKS.filter((check) => !(checked ?? []).includes(check));
  if (missing.length === 0) return null;
  return `must list each check the review made (${REVIEW_CHECKS.join(', ')}); missing: ${missing.join(', ')}`;
}

/** The sign-off a move to `to` needs (when sign-offs are required): the review before `processing`, the final check before `shipped`. */
export function signoffNeededFor(to: OrderStatus): SignoffKind | null {
  if (to === 'processing') return 'prescription_review';
  if (to === 'shipped') return 'final_check';
  return null;
}
