/**
 * Why an order is on hold: the catalog partners read (`GET /api/external/hold-reasons`) and the
 * pharmacy chooses from (docs/orders.md#holds). Each reason says whose move it is and what resolves
 * it. Peers: Honeybee's On Hold ("will not progress until you respond"), Truepill's triage codes
 * ("do not cancel and resubmit"), FHIR's `on-hold` MedicationRequest and MedicationDispense.
 */

/** Whose move it is: the partner must answer, or the pharmacy is working on it. */
export const WAITING_ON = ['partner', 'pharmacy'] as const;
export type WaitingOn = (typeof WAITING_ON)[number];

/** How a hold was resolved: the partner's address answered it, the pharmacy resolved it, a pharmacist overrode a clinical one. */
export const HOLD_RESOLUTIONS = ['answer', 'resume', 'override'] as const;

export interface HoldReason {
  readonly code: string;
  /** What stopped the order, for the partner's staff (no PHI: the pharmacy's message carries the specifics). */
  readonly reason: string;
  /** Whose move it is when the hold begins; null for `other`, where the pharmacy says. */
  readonly waiting_on: WaitingOn | null;
  /** What resolves the hold. */
  readonly answer: string;
  /**
   * A clinical check (issue 39, item 2): resolved only by a pharmacist signed in as themselves, with
   * an override reason (docs/orders.md#clinical-holds). A new clinical check is marked here.
   */
  readonly clinical: boolean;
}

export const HOLD_REASONS = [
  {
    code: 'prescription_clarification',
    reason: 'The pharmacist needs the prescription clarified (dose, directions, quantity or a medication).',
    waiting_on: 'partner',
    answer: 'Answer with the clarification from the prescriber; the pharmacist then resumes the order.',
    clinical: false,
  },
  {
    code: 'prescriber_outreach',
    reason: 'The pharmacy is contacting the prescriber directly.',
    waiting_on: 'pharmacy',
    answer: 'Nothing is needed from you; the pharmacy resumes the order once the prescriber has answered.',
    clinical: false,
  },
  {
    code: 'address_undeliverable',
    reason: 'The carrier cannot deliver to the patient\u2019s shipping address.',
    waiting_on: 'partner',
    answer: 'Answer with a corrected `address`: the order takes it and resumes at once.',
    clinical: false,
  },
  {
    code: 'patient_unreachable',
    reason: 'The pharmacy could not reach the patient (consultation, payment or delivery details).',
    waiting_on: 'partner',
    answer: 'Ask the patient to contact the pharmacy, then answer; the pharmacist resumes the order.',
    clinical: false,
  },
  {
    code: 'allergy_conflict',
    reason: 'An ingredient conflicts with the patient\u2019s recorded allergies.',
    waiting_on: 'pharmacy',
    answer:
      'The pharmacist reviews the conflict and resumes or cancels the order; you may answer with what the prescriber knows.',
    clinical: true,
  },
  {
    code: 'duplicate_therapy',
    reason: 'The patient already has an active order with the same ingredient.',
    waiting_on: 'pharmacy',
    answer:
      'The pharmacist reviews the overlap and resumes or cancels the order; you may answer with the prescriber\u2019s intent.',
    clinical: true,
  },
  {
    code: 'out_of_stock',
    reason: 'An ingredient or component is out of stock.',
    waiting_on: 'pharmacy',
    answer:
      'Nothing is needed from you; the pharmacy resumes the order when stock arrives. Cancel it if the patient cannot wait.',
    clinical: false,
  },
  {
    code: 'state_not_licensed',
    reason: 'The pharmacy may not ship this order to the patient\u2019s state.',
    waiting_on: 'partner',
    answer: 'Answer with a shipping `address` in a state the pharmacy serves, or cancel the order and route it elsewhere.',
    clinical: false,
  },
  {
    code: 'delivery_exception',
    reason: 'The carrier reported a problem delivering the shipment.',
    waiting_on: 'partner',
    answer: 'Confirm or correct the delivery details in your answer; the pharmacy then resumes the order.',
    clinical: false,
  },
  {
    code: 'other',
    reason: 'Another reason, explained in the pharmacy\u2019s message.',
    waiting_on: null,
    answer: 'Follow the pharmacy\u2019s message; `waiting_on` says whether your answer is needed.',
    clinical: false,
  },
] as const satisfies readonly HoldReason[];

export type HoldReasonCode = (typeof HOLD_REASONS)[number]['code'];

export const HOLD_REASON_CODES: readonly HoldReasonCode[] = HOLD_REASONS.map((r) => r.code);

const BY_CODE: ReadonlyMap<string, HoldReason> = new Map(HOLD_REASONS.map((r) => [r.code, r]));

export const holdReasonOf = (code: string): HoldReason | undefined => BY_CODE.get(code);

/** The clinical reasons: a pharmacist's override resolves them, nothing else (docs/orders.md#clinical-holds). */
export const CLINICAL_REASONS: ReadonlySet<string> = new Set(HOLD_REASONS.filter((r) => r.clinical).map((r) => r.code));

export const isClinical = (code: string): boolean => CLINICAL_REASONS.has(code);

/** The reason a hold answered with an address is resolved at once: the address was the problem. */
export const RESOLVED_BY_ADDRESS: ReadonlySet<string> = new Set<HoldReasonCode>(['address_undeliverable']);
